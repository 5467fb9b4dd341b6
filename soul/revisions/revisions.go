// Package revisions is the one revisions store of the workspace's files the
// agent may change — SOUL.md, MEMORY.md, each skill's SKILL.md — kept in
// state.db's table revisions, keyed by kind. Every version is a row, with
// its author and reason, including edits made with an editor (recorded as
// the user's when first noticed) and removals, so any version can be diffed
// and restored and history only grows.
//
// What a kind keeps for itself is how its file is read and written; the
// store keeps the rows, the reason rule, the content hash and the write
// transaction in which a file is replaced. A new revisioned file is a Kind
// value and a caller of Update, Notice and Record.
package revisions

import (
	"agent/memory/errkind"
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"
)

// Migrations holds the table's schema, applied by the workspace opener
// (core) before the migrations that move each kind's older table into it.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Author says who wrote a revision.
type Author string

// Authors of revisions. Edits made outside agent are the user's.
const (
	User  Author = "user"
	Agent Author = "agent"
)

// Reasons recorded for changes agent notices rather than makes.
const (
	ReasonInitial        = "initial"
	ReasonEdited         = "edited outside agent"
	ReasonRemovedOutside = "removed outside agent"
)

// MaxReasonRunes caps a reason the model may write (CheckReason).
const MaxReasonRunes = 200

// ErrInvalid marks a reason CheckReason refuses or an unknown author; its
// message is whole ("the reason is …"), for the caller to put in its own.
var ErrInvalid = errkind.Invalid()

type invalidError string

func (e invalidError) Error() string { return string(e) }
func (e invalidError) Unwrap() error { return ErrInvalid } // and so errkind.ErrInvalid

func invalidf(format string, args ...any) error { return invalidError(fmt.Sprintf(format, args...)) }

// Revision is one recorded version of a file, or its removal.
type Revision struct {
	ID        int64
	Name      string // which file of the kind ("" for a kind of one file)
	Removed   bool
	Author    Author
	Reason    string
	CreatedAt time.Time
	SHA256    string // hex of Content
	Content   string // empty in History
}

// Kind is one sort of revisioned file. Revision numbers count per kind, so
// each kind's numbers are the ones its commands have always shown.
type Kind struct {
	Key string // the table's kind column: "soul", "memory", "skill"
	// NotFound is the error for an unknown revision, in the kind's words
	// and matching its package's not-found error.
	NotFound func(name string, id int64) error
}

// Store keeps one kind's revisions. The db must use immediate write
// transactions (core's does): a file is written while Update's transaction
// holds the write lock, so two processes cannot interleave file and row.
type Store struct {
	db   *sql.DB
	kind Kind
	now  func() time.Time
}

// New returns the store of kind in db; now is the clock (time.Now if nil).
func New(db *sql.DB, kind Kind, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, kind: kind, now: now}
}

// Tx is one write transaction of a store: what is read and recorded in it
// is seen by no other writer until it commits.
type Tx struct {
	ctx context.Context
	s   *Store
	tx  *sql.Tx
}

// Update runs fn in a write transaction, committing only if fn succeeds:
// a file written inside fn that fails rolls its row back.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(&Tx{ctx: ctx, s: s, tx: tx}); err != nil {
		return err
	}
	return tx.Commit()
}

// Latest is the newest revision of name without its content; ok is false
// when name has none.
func (t *Tx) Latest(name string) (rev Revision, ok bool, err error) {
	return t.s.latest(t.ctx, t.tx, name)
}

// Latest is Tx.Latest outside a transaction: a reader's quick check that
// needs no write lock.
func (s *Store) Latest(ctx context.Context, name string) (rev Revision, ok bool, err error) {
	return s.latest(ctx, s.db, name)
}

func (s *Store) latest(ctx context.Context, q querier, name string) (rev Revision, ok bool, err error) {
	err = q.QueryRowContext(ctx, qLatest, s.kind.Key, name).Scan(&rev.ID, &rev.SHA256, &rev.Removed)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, false, nil
	}
	if err != nil {
		return Revision{}, false, fmt.Errorf("%s history: %w", s.kind.Key, err)
	}
	rev.Name = name
	return rev, true, nil
}

// Notice brings the history of name up to the file as it is (content, or
// exists=false for no file): a new or changed file becomes the user's
// revision, a file gone since its last revision the user's removal. It
// returns the revision matching the file, 0 when there is none.
func (t *Tx) Notice(name, content string, exists bool) (int64, error) {
	last, ok, err := t.Latest(name)
	switch {
	case err != nil:
		return 0, err
	case !exists && (!ok || last.Removed):
		return 0, nil
	case !exists:
		return t.insert(name, "", true, User, ReasonRemovedOutside)
	case !ok:
		return t.insert(name, content, false, User, ReasonInitial)
	case last.Removed || last.SHA256 != Hash(content):
		return t.insert(name, content, false, User, ReasonEdited)
	}
	return last.ID, nil
}

// Holds returns the latest revision of name when it holds content (a save
// of the same content records nothing).
func (t *Tx) Holds(name, content string) (Revision, bool, error) {
	last, ok, err := t.Latest(name)
	if err != nil || !ok || last.Removed || last.SHA256 != Hash(content) {
		return Revision{}, false, err
	}
	rev, err := t.Get(name, last.ID)
	return rev, err == nil, err
}

// Record adds content as the newest revision of name by author, then
// write, if not nil, puts the file in place — inside the transaction, so a
// failed write leaves no row. The reason is folded onto one line (Fold).
func (t *Tx) Record(name, content string, author Author, reason string, write func() error) (Revision, error) {
	id, err := t.insert(name, content, false, author, reason)
	if err != nil {
		return Revision{}, err
	}
	if write != nil {
		if err := write(); err != nil {
			return Revision{}, err
		}
	}
	return t.Get(name, id)
}

// RecordRemoval records that name's file is gone, by author; remove, if not
// nil, deletes it inside the transaction.
func (t *Tx) RecordRemoval(name string, author Author, reason string, remove func() error) (Revision, error) {
	id, err := t.insert(name, "", true, author, reason)
	if err != nil {
		return Revision{}, err
	}
	if remove != nil {
		if err := remove(); err != nil {
			return Revision{}, err
		}
	}
	return t.Get(name, id)
}

// Get returns revision id of name with its content, inside the transaction.
func (t *Tx) Get(name string, id int64) (Revision, error) {
	return t.s.get(t.ctx, t.tx, name, id)
}

func (t *Tx) insert(name, content string, removed bool, author Author, reason string) (int64, error) {
	if author != User && author != Agent {
		return 0, invalidf("unknown author %q (user or agent)", author)
	}
	var id int64
	err := t.tx.QueryRowContext(t.ctx, qInsert, t.s.kind.Key, t.s.kind.Key, name, content, removed, Hash(content), string(author), Fold(reason), formatTime(t.s.now())).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record revision: %w", err)
	}
	return id, nil
}

// History returns name's revisions, newest first, without their content.
// It reads what is recorded: a kind notices an editor's change first.
func (s *Store) History(ctx context.Context, name string) ([]Revision, error) {
	rows, err := s.db.QueryContext(ctx, qHistory, s.kind.Key, name)
	if err != nil {
		return nil, fmt.Errorf("%s history: %w", s.kind.Key, err)
	}
	defer rows.Close()
	var out []Revision
	for rows.Next() {
		r := Revision{Name: name}
		var at string
		if err := rows.Scan(&r.ID, &r.Removed, &r.Author, &r.Reason, &at, &r.SHA256); err != nil {
			return nil, fmt.Errorf("%s history: %w", s.kind.Key, err)
		}
		if r.CreatedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("%s history: revision %d: %w", s.kind.Key, r.ID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s history: %w", s.kind.Key, err)
	}
	return out, nil
}

// Get returns revision id of name with its content; the kind's NotFound
// error if there is none.
func (s *Store) Get(ctx context.Context, name string, id int64) (Revision, error) {
	return s.get(ctx, s.db, name, id)
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) get(ctx context.Context, q querier, name string, id int64) (Revision, error) {
	r := Revision{ID: id, Name: name}
	var at string
	err := q.QueryRowContext(ctx, qRevision, s.kind.Key, id, name).Scan(&r.Removed, &r.Author, &r.Reason, &at, &r.SHA256, &r.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, s.kind.NotFound(name, id)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("%s revision %d: %w", s.kind.Key, id, err)
	}
	if r.CreatedAt, err = parseTime(at); err != nil {
		return Revision{}, fmt.Errorf("%s revision %d: %w", s.kind.Key, id, err)
	}
	return r, nil
}

// Fold puts a reason on one trimmed line: line breaks, control and format
// characters become single spaces (a reason is printed as one table cell).
func Fold(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf)
	}), " ")
}

// CheckReason folds a reason the model may have written and refuses one
// that is not UTF-8 or is over MaxReasonRunes (ErrInvalid).
func CheckReason(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", invalidf("the reason is not valid UTF-8")
	}
	s = Fold(s)
	if n := utf8.RuneCountInString(s); n > MaxReasonRunes {
		return "", invalidf("the reason is %d characters; the limit is %d", n, MaxReasonRunes)
	}
	return s, nil
}

// Diff returns a unified diff from old to new, "" when they are equal.
func Diff(oldName, old, newName, new string) string {
	return string(diff.Diff(oldName, []byte(old), newName, []byte(new)))
}

// Hash is the hex SHA-256 of content, as recorded with each revision.
func Hash(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

// Times are stored as RFC 3339 in UTC, so they sort as text.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad timestamp %q: %w", s, err)
	}
	return t, nil
}
