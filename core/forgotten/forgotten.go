// Package forgotten keeps the record of what was forgotten (the forgotten
// table of state.db: its schema and every write to it) and what of a forget
// travels to the other devices: a phrase's HMAC under the workspace's
// forget key, which only the user's devices hold, so that whoever holds
// only the synced files (a remote, a file-sync server) can neither confirm
// a guess of the phrase nor forge a forget that matches anything.
// core/forget does the forgetting; core/journal carries the record and
// hands what arrives to ApplyTx. See docs/decisions-forgetsync.md.
package forgotten

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"regexp"
	"strings"
	"time"

	"agent/core/statedb"
)

// Migrations are the forgotten table and the forget keys (component
// "forget" in state.db, the name they were first applied under).
//
//go:embed migrations/*.sql
var Migrations embed.FS

// MinRunes is the shortest phrase a forget takes, here and from elsewhere:
// a shorter one ("the", "e") is in every text, and replacing it everywhere
// breaks words, names and marks rather than forgetting anything.
const MinRunes = 4

// maxRunes bounds a phrase from elsewhere (a forget's search costs one MAC
// per character per phrase length).
const maxRunes = 1000

// ErrInvalid marks a forget record that is not one (from elsewhere).
var ErrInvalid = errors.New("invalid")

// Value is what a forget journals (core/journal's kind forget, keyed by the
// forgotten row's id): the phrase's HMAC under the key named Key, with a
// salt of its own and its length in characters. Never the phrase.
type Value struct {
	Salt  string `json:"salt"` // hex, 16 bytes
	MAC   string `json:"mac"`  // hex HMAC-SHA256(key, salt || folded phrase)
	Runes int    `json:"runes"`
	Key   string `json:"key"` // the key's id
}

// Key is a forget key: 32 random bytes and the id that names it.
type Key struct {
	ID     string
	secret []byte
}

// keyID names a key without saying anything of it.
func keyID(secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("agent forget key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// String is the key as the user copies it to another device.
func (k Key) String() string { return hex.EncodeToString(k.secret) }

// Hash is what a phrase is kept as, under k: an HMAC whose Reset starts
// the next one.
func (k Key) Hash() hash.Hash { return hmac.New(sha256.New, k.secret) }

// Sum is the hex hash of salt and a folded phrase under k.
func (k Key) Sum(salt []byte, folded string) string {
	h := k.Hash()
	h.Write(salt)
	h.Write([]byte(folded))
	return hex.EncodeToString(h.Sum(nil))
}

// Plain is the hash of rows made before keys: a salted SHA-256.
func Plain() hash.Hash { return sha256.New() }

// ParseKey reads a key as String wrote it.
func ParseKey(s string) (Key, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 32 {
		return Key{}, fmt.Errorf("a forget key is 64 hex digits (from agent sync key on a device that has it): %w", ErrInvalid)
	}
	return Key{ID: keyID(b), secret: b}, nil
}

// Querier is what reading the keys needs: *sql.DB or a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Keys are the workspace's forget keys by id, the newest (the one a forget
// made here uses) first in order.
func Keys(ctx context.Context, db Querier) (map[string]Key, []string, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, secret FROM forget_keys ORDER BY added_at DESC, rowid DESC`)
	if err != nil {
		return nil, nil, fmt.Errorf("forget keys: %w", err)
	}
	defer rows.Close()
	keys := map[string]Key{}
	var order []string
	for rows.Next() {
		var k Key
		if err := rows.Scan(&k.ID, &k.secret); err != nil {
			return nil, nil, err
		}
		keys[k.ID] = k
		order = append(order, k.ID)
	}
	return keys, order, rows.Err()
}

// CurrentTx is the key a forget made here uses, made on first use.
func CurrentTx(ctx context.Context, tx *sql.Tx, now time.Time) (Key, error) {
	keys, order, err := Keys(ctx, tx)
	if err != nil {
		return Key{}, err
	}
	if len(order) > 0 {
		return keys[order[0]], nil
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return Key{}, err
	}
	k := Key{ID: keyID(secret), secret: secret}
	_, err = tx.ExecContext(ctx, `INSERT INTO forget_keys (id, secret, added_at) VALUES (?1, ?2, ?3)`, k.ID, secret, stamp(now))
	return k, err
}

// Current is CurrentTx in a transaction of its own.
func Current(ctx context.Context, db *sql.DB, now time.Time) (Key, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Key{}, err
	}
	defer tx.Rollback()
	k, err := CurrentTx(ctx, tx, now)
	if err != nil {
		return Key{}, err
	}
	return k, tx.Commit()
}

// Add makes k the key forgets made here use (the one another device
// made, copied by the user); the keys held before still read the forgets
// made with them.
func Add(ctx context.Context, db *sql.DB, k Key, now time.Time) error {
	_, err := db.ExecContext(ctx, `INSERT INTO forget_keys (id, secret, added_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (id) DO UPDATE SET added_at = excluded.added_at`, k.ID, k.secret, stamp(now))
	return err
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

var (
	hexID   = regexp.MustCompile(`^[0-9a-f]{16}$`)
	hexSalt = regexp.MustCompile(`^[0-9a-f]{32}$`)
	hexMAC  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ApplyTx records a phrase another device forgot (id is its forgotten
// row's id there), as pending: core/forget searches this device for it
// (ApplyPending) with the key it names. A record that is not one a device
// writes is refused (ErrInvalid): a phrase shorter than MinRunes, a plain
// hash that anyone holding the synced files could have made, fields out
// of shape. A row already here (a forget read back) is left.
func ApplyTx(ctx context.Context, tx statedb.Tx, id string, v Value, at time.Time) error {
	switch {
	case !hexID.MatchString(id):
		return fmt.Errorf("a forget id %q that is not 16 hex digits: %w", id, ErrInvalid)
	case v.Key == "":
		return fmt.Errorf("a forget hashed without the workspace's forget key (made by an older agent): %w", ErrInvalid)
	case !hexID.MatchString(v.Key) || !hexSalt.MatchString(v.Salt) || !hexMAC.MatchString(v.MAC):
		return fmt.Errorf("a forget whose key, salt or hash is out of shape: %w", ErrInvalid)
	case v.Runes < MinRunes || v.Runes > maxRunes:
		return fmt.Errorf("a forget of %d characters (at least %d, at most %d): %w", v.Runes, MinRunes, maxRunes, ErrInvalid)
	}
	salt, _ := hex.DecodeString(v.Salt)
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO forgotten (id, kind, hash, salt, runes, files, rows, sessions, at, pending, journalled, key_id)
		VALUES (?1, 'phrase', ?2, ?3, ?4, 0, 0, 0, ?5, 1, 1, ?6)`, id, v.MAC, salt, v.Runes, at.UTC().Format(time.RFC3339), v.Key)
	return err
}
