// Package soul keeps SOUL.md, the agent's persona: loading it with a size
// cap, saving it atomically, and a revision in state.db for every version,
// including edits made with an editor, so any version can be diffed and
// restored.
package soul

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"
)

// MaxBytes caps SOUL.md: 16 KiB, roughly 4,000 tokens, injected every turn.
// The agent cannot save more; a user's larger file is used whole, with a
// warning, never cut.
const MaxBytes = 16 << 10

// maxReasonRunes caps a revision's reason, which the model may write.
const maxReasonRunes = 200

// Author says who wrote a revision.
type Author string

// Authors of revisions. Edits made outside agent are the user's.
const (
	User  Author = "user"
	Agent Author = "agent"
)

// Reasons recorded for revisions agent notices rather than makes.
const (
	ReasonInitial = "initial"
	ReasonEdited  = "edited outside agent"
)

// Revision is one saved version of SOUL.md.
type Revision struct {
	ID        int64
	Author    Author
	Reason    string
	CreatedAt time.Time
	SHA256    string // hex of Content
	Content   string
}

// Soul is SOUL.md as loaded: its content, the revision that matches it, and
// warnings for the user (for example, over the size cap).
type Soul struct {
	Content  string
	Revision int64
	Warnings []string
}

// Store loads and saves SOUL.md at path and keeps its revisions in state.db.
// The db must be opened with immediate write transactions (core does:
// _txlock=immediate): the file is written while that lock is held, so two
// processes saving at once cannot interleave file and revision.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

// NewStore returns a Store for the SOUL.md at path; now is the clock
// (time.Now if nil).
func NewStore(db *sql.DB, path string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, path: path, now: now}
}

// Load reads SOUL.md. If it differs from the latest revision (an editor
// changed it) or there is no revision yet, it is first recorded as a user
// revision, so nothing written later can lose that edit.
func (s *Store) Load(ctx context.Context) (Soul, error) {
	content, err := readFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		// The persona's revisions live in state.db: point at the user's own
		// latest one before the default.
		var id int64
		var sum string
		if s.db.QueryRowContext(ctx, qLatest).Scan(&id, &sum) == nil {
			return Soul{}, &kindError{kind: fs.ErrNotExist, msg: fmt.Sprintf("no SOUL.md at %s; restore your persona with: agent soul revert %d (its latest revision; see agent soul history), or run agent init for the default one", s.path, id)}
		}
	}
	if err != nil {
		return Soul{}, err
	}
	// The common case, file unchanged, needs no write lock.
	var id int64
	var sum string
	err = s.db.QueryRowContext(ctx, qLatest).Scan(&id, &sum)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Soul{}, fmt.Errorf("load SOUL.md: %w", err)
	}
	if err != nil || sum != hash(content) {
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			content, id, err = s.sync(ctx, tx, false)
			return err
		})
		if err != nil {
			return Soul{}, fmt.Errorf("load SOUL.md: %w", err)
		}
	}
	return Soul{Content: content, Revision: id, Warnings: s.warnings(content)}, nil
}

func (s *Store) warnings(content string) []string {
	if len(content) <= MaxBytes {
		return nil
	}
	return []string{fmt.Sprintf("%s is %d bytes, over the %d-byte cap: it is used whole, but consider trimming it", s.path, len(content), MaxBytes)}
}

// Save writes content to SOUL.md and records it as a revision by author, in
// one step: the file is replaced atomically while the revision's transaction
// holds the state.db write lock, and an editor's unrecorded change is saved
// as a user revision first. Saving what the file already holds records
// nothing and returns the current revision. The agent may not save empty
// content or more than MaxBytes (ErrInvalid).
func (s *Store) Save(ctx context.Context, content string, author Author, reason string) (Revision, error) {
	if author != User && author != Agent {
		return Revision{}, invalidf("save SOUL.md: unknown author %q (user or agent)", author)
	}
	if !utf8.ValidString(content) {
		return Revision{}, invalidf("save SOUL.md: content is not valid UTF-8")
	}
	if author == Agent && len(content) > MaxBytes {
		return Revision{}, invalidf("save SOUL.md: %d bytes is over the %d-byte cap", len(content), MaxBytes)
	}
	if author == Agent && strings.TrimSpace(content) == "" {
		return Revision{}, invalidf("save SOUL.md: refusing to save an empty persona")
	}
	reason, err := normaliseReason(reason)
	if err != nil {
		return Revision{}, err
	}
	var rev Revision
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		rev, err = s.write(ctx, tx, content, author, reason, false)
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("save SOUL.md: %w", err)
	}
	return rev, nil
}

// History returns every revision, newest first, without Content. Like every
// reader it first records an editor's change to SOUL.md.
func (s *Store) History(ctx context.Context) ([]Revision, error) {
	// An editor's change is recorded first; a missing SOUL.md still has its
	// history (that is when a revision to restore is wanted).
	if _, err := s.Load(ctx); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, qHistory)
	if err != nil {
		return nil, fmt.Errorf("soul history: %w", err)
	}
	defer rows.Close()
	var out []Revision
	for rows.Next() {
		var r Revision
		var at string
		if err := rows.Scan(&r.ID, &r.Author, &r.Reason, &at, &r.SHA256); err != nil {
			return nil, fmt.Errorf("soul history: %w", err)
		}
		if r.CreatedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("soul history: revision %d: %w", r.ID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("soul history: %w", err)
	}
	return out, nil
}

// Get returns revision id with its content; ErrNotFound if there is none.
func (s *Store) Get(ctx context.Context, id int64) (Revision, error) {
	return getRevision(ctx, s.db, id)
}

// Revert restores revision id as a new user revision (history only grows).
// It works when SOUL.md is missing; if the file holds an unrecorded edit,
// that edit is recorded first. Reverting to what the file already holds
// records nothing and returns the current revision.
func (s *Store) Revert(ctx context.Context, id int64) (Revision, error) {
	var rev Revision
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		old, err := getRevision(ctx, tx, id)
		if err != nil {
			return err
		}
		rev, err = s.write(ctx, tx, old.Content, User, fmt.Sprintf("revert to revision %d", id), true)
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("revert SOUL.md: %w", err)
	}
	return rev, nil
}

// Diff returns a unified diff from old to new, "" when they are equal.
func Diff(oldName, old, newName, new string) string {
	return string(diff.Diff(oldName, []byte(old), newName, []byte(new)))
}

// sync records SOUL.md as a user revision if it differs from the latest one,
// and returns its content and matching revision. With allowMissing a missing
// file is not an error: it returns revision 0.
func (s *Store) sync(ctx context.Context, tx *sql.Tx, allowMissing bool) (string, int64, error) {
	content, err := readFile(s.path)
	if allowMissing && errors.Is(err, fs.ErrNotExist) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	var id int64
	var sum string
	reason := ReasonEdited
	switch err := tx.QueryRowContext(ctx, qLatest).Scan(&id, &sum); {
	case errors.Is(err, sql.ErrNoRows):
		reason = ReasonInitial
	case err != nil:
		return "", 0, err
	case sum == hash(content):
		return content, id, nil
	}
	id, err = s.insert(ctx, tx, content, User, reason)
	return content, id, err
}

// write makes content the new SOUL.md inside tx: editor changes recorded
// first, then the revision row, then the file. A failed file write rolls
// the row back with the transaction.
func (s *Store) write(ctx context.Context, tx *sql.Tx, content string, author Author, reason string, allowMissing bool) (Revision, error) {
	cur, curID, err := s.sync(ctx, tx, allowMissing)
	if err != nil {
		return Revision{}, err
	}
	if curID != 0 && cur == content {
		return getRevision(ctx, tx, curID)
	}
	id, err := s.insert(ctx, tx, content, author, reason)
	if err != nil {
		return Revision{}, err
	}
	if err := writeAtomic(s.path, []byte(content)); err != nil {
		return Revision{}, err
	}
	return getRevision(ctx, tx, id)
}

func (s *Store) insert(ctx context.Context, tx *sql.Tx, content string, author Author, reason string) (int64, error) {
	res, err := tx.ExecContext(ctx, qInsertRevision, content, hash(content), string(author), reason, formatTime(s.now()))
	if err != nil {
		return 0, fmt.Errorf("record revision: %w", err)
	}
	return res.LastInsertId()
}

// inTx runs fn in a write transaction, committing only if fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getRevision(ctx context.Context, q querier, id int64) (Revision, error) {
	var r Revision
	var at string
	err := q.QueryRowContext(ctx, qRevision, id).Scan(&r.ID, &r.Author, &r.Reason, &at, &r.SHA256, &r.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, notFoundf("no soul revision %d", id)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("soul revision %d: %w", id, err)
	}
	if r.CreatedAt, err = parseTime(at); err != nil {
		return Revision{}, fmt.Errorf("soul revision %d: %w", id, err)
	}
	return r, nil
}

// normaliseReason folds a reason onto one trimmed line: the model may write
// it, so line breaks and control characters become single spaces.
func normaliseReason(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", invalidf("save SOUL.md: reason is not valid UTF-8")
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf)
	}), " ")
	if n := utf8.RuneCountInString(s); n > maxReasonRunes {
		return "", invalidf("save SOUL.md: reason is %d characters; the limit is %d", n, maxReasonRunes)
	}
	return s, nil
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
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
