package forgotten

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Phrase is a forgotten phrase's row: what finds it again. KeyID is empty
// for a plain salted SHA-256 (a row made before keys).
type Phrase struct {
	ID    string
	Hash  string
	Salt  []byte
	Runes int
	KeyID string
}

const phraseColumns = `id, hash, salt, runes, key_id`

func scanPhrases(rows *sql.Rows, err error) ([]Phrase, error) {
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	defer rows.Close()
	var out []Phrase
	for rows.Next() {
		var p Phrase
		if err := rows.Scan(&p.ID, &p.Hash, &p.Salt, &p.Runes, &p.KeyID); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Known are the phrases forgotten here (done; pending ones are searched for
// by ApplyPending), oldest first.
func Known(ctx context.Context, db Querier) ([]Phrase, error) {
	return scanPhrases(db.QueryContext(ctx, `SELECT `+phraseColumns+` FROM forgotten
		WHERE kind = 'phrase' AND pending = 0 AND runes > 0 ORDER BY at, id`))
}

// All are the phrases forgotten here or waiting to be (an import skips
// them all).
func All(ctx context.Context, db Querier) ([]Phrase, error) {
	return scanPhrases(db.QueryContext(ctx, `SELECT `+phraseColumns+` FROM forgotten
		WHERE kind = 'phrase' AND runes > 0 ORDER BY at, id`))
}

// Pending are the phrases other devices forgot that this device can search
// for (it holds their key), oldest first.
func Pending(ctx context.Context, db Querier) ([]Phrase, error) {
	return scanPhrases(db.QueryContext(ctx, `SELECT `+phraseColumns+` FROM forgotten
		WHERE pending = 1 AND kind = 'phrase' AND key_id IN (SELECT id FROM forget_keys) ORDER BY at, id`))
}

// Of is the phrase of row id; ok is false for a row that is not one.
func Of(ctx context.Context, db Querier, id string) (Phrase, bool, error) {
	list, err := scanPhrases(db.QueryContext(ctx, `SELECT `+phraseColumns+` FROM forgotten WHERE id = ?1 AND kind = 'phrase'`, id))
	if err != nil || len(list) == 0 {
		return Phrase{}, false, err
	}
	return list[0], true, nil
}

// one runs a query of one number.
func one(ctx context.Context, db *sql.DB, q string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, q).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("forget: %w", err)
	}
	return n, nil
}

// HasPending reports whether another device's forget waits to be applied
// here and can be (its key is here): one query.
func HasPending(ctx context.Context, db *sql.DB) (bool, error) {
	n, err := one(ctx, db, `SELECT 1 FROM forgotten WHERE pending = 1 AND key_id IN (SELECT id FROM forget_keys) LIMIT 1`)
	return n > 0, err
}

// Waits counts, in one query, the forgets another device made that wait
// here: ready, whose key is here (HasPending), and waiting, for a key the
// user has not copied here yet (Waiting). Every open asks.
func Waits(ctx context.Context, db *sql.DB) (ready, waiting int, err error) {
	err = db.QueryRowContext(ctx, `SELECT coalesce(sum(key_id IN (SELECT id FROM forget_keys)), 0),
		coalesce(sum(key_id NOT IN (SELECT id FROM forget_keys)), 0) FROM forgotten WHERE pending = 1`).Scan(&ready, &waiting)
	if err != nil {
		return 0, 0, fmt.Errorf("forget: %w", err)
	}
	return ready, waiting, nil
}

// Waiting counts the forgets another device made that wait for its key:
// until the user copies it here (agent sync key), they cannot be found.
func Waiting(ctx context.Context, db *sql.DB) (int, error) {
	return one(ctx, db, `SELECT count(*) FROM forgotten WHERE pending = 1 AND key_id NOT IN (SELECT id FROM forget_keys)`)
}

// Counts are what a forget changed.
type Counts struct{ Files, Rows, Sessions int }

// RecordTx records a forget made here in tx, the forget's commit point:
// a phrase (folded; "" for deleted sessions) is kept as its hash under the
// workspace's forget key, never as itself.
func RecordTx(ctx context.Context, tx *sql.Tx, id, folded string, c Counts, now time.Time) error {
	kind, hash, keyID, runes := "sessions", "", "", 0
	var salt []byte
	if folded != "" {
		k, err := CurrentTx(ctx, tx, now)
		if err != nil {
			return err
		}
		salt = make([]byte, 16)
		rand.Read(salt)
		kind, hash, keyID, runes = "phrase", k.Sum(salt, folded), k.ID, utf8.RuneCountInString(folded)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO forgotten (id, kind, hash, salt, runes, files, rows, sessions, at, key_id)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`, id, kind, hash, salt, runes, c.Files, c.Rows, c.Sessions,
		now.UTC().Format(time.RFC3339), keyID)
	return err
}

// DoneTx marks another device's forget done here, in the transaction that
// made its changes (the commit point of this device's part).
func DoneTx(ctx context.Context, tx *sql.Tx, id string, c Counts, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE forgotten SET pending = 0, files = ?2, rows = ?3, at = ?4 WHERE id = ?1`,
		id, c.Files, c.Rows, now.UTC().Format(time.RFC3339))
	return err
}

// NothingHere marks another device's forget done here when nothing here
// held the phrase.
func NothingHere(ctx context.Context, db *sql.DB, id string) error {
	_, err := db.ExecContext(ctx, `UPDATE forgotten SET pending = 0 WHERE id = ?1`, id)
	return err
}

// Unannounced are the forgets made here not yet told to the other devices,
// as they travel. Rows made before keys are never told: their plain hash
// would let anyone holding the synced files test guesses of the phrase.
func Unannounced(ctx context.Context, db Querier) (map[string]Value, []string, error) {
	list, err := scanPhrases(db.QueryContext(ctx, `SELECT `+phraseColumns+` FROM forgotten
		WHERE kind = 'phrase' AND pending = 0 AND journalled = 0 AND runes > 0 AND key_id != '' ORDER BY at, id`))
	if err != nil {
		return nil, nil, err
	}
	out := map[string]Value{}
	var order []string
	for _, p := range list {
		out[p.ID] = Value{Salt: hex.EncodeToString(p.Salt), MAC: p.Hash, Runes: p.Runes, Key: p.KeyID}
		order = append(order, p.ID)
	}
	return out, order, nil
}

// Announced marks a forget told to the other devices.
func Announced(ctx context.Context, db *sql.DB, id string) error {
	_, err := db.ExecContext(ctx, `UPDATE forgotten SET journalled = 1 WHERE id = ?1`, id)
	return err
}

// Committed says whether forget id is done here (the commit point a
// half-finished forget is rolled forward or back by).
func Committed(ctx context.Context, db *sql.DB, id string) (bool, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM forgotten WHERE id = ?1 AND pending = 0`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("forget: %w", err)
	}
	return n > 0, nil
}
