// Package memrev keeps the revisions of MEMORY.md in state.db: every change
// the agent makes (a fact added, a fact superseded, a revert) is recorded
// with its author and reason, and an edit made with an editor is recorded
// as the user's revision the first time it is noticed, so any version can be
// diffed and restored and no line is ever lost for good.
package memrev

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"agent/memory"
)

// Migrations holds this package's state.db schema, applied by core.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// File is MEMORY.md's name in the workspace.
const File = "MEMORY.md"

// Authors of revisions.
const (
	User  = "user"
	Agent = "agent"
)

// Reasons recorded for revisions noticed rather than made.
const (
	ReasonInitial = "initial"
	ReasonEdited  = "edited outside agent"
)

// ErrNotFound is an unknown revision: memory's, which the CLI maps to exit 3.
var ErrNotFound = memory.ErrNotFound

// notFound is a whole user-facing message that matches ErrNotFound.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == ErrNotFound }

const (
	qLatest   = `SELECT id, sha256 FROM memory_revisions ORDER BY id DESC LIMIT 1`
	qInsert   = `INSERT INTO memory_revisions (content, sha256, author, reason, created_at) VALUES (?, ?, ?, ?, ?)`
	qHistory  = `SELECT id, author, reason, created_at, sha256 FROM memory_revisions ORDER BY id DESC`
	qRevision = `SELECT id, author, reason, created_at, sha256, content FROM memory_revisions WHERE id = ?`
)

// Revision is one recorded version of MEMORY.md.
type Revision struct {
	ID        int64
	Author    string
	Reason    string
	CreatedAt time.Time
	SHA256    string
	Content   string // empty in History
}

// Store records MEMORY.md's revisions. The db must use immediate write
// transactions (core's does): a change runs while the transaction holds the
// write lock, so two processes cannot interleave file and revision.
type Store struct {
	db   *sql.DB
	home string
	now  func() time.Time
}

// NewStore returns the store for the workspace at home; now is the clock
// (time.Now if nil).
func NewStore(db *sql.DB, home string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, home: home, now: now}
}

// Sync records MEMORY.md as a user revision when it differs from the latest
// one (an editor changed it), and returns the revision matching the file
// (0 when there is no file and no revision).
func (s *Store) Sync(ctx context.Context) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		_, id, err = s.sync(ctx, tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("record %s: %w", File, err)
	}
	return id, nil
}

// Change runs change (which writes MEMORY.md through the memory package,
// under its lock) and records the result as a revision by author. An
// editor's unrecorded change is recorded first as the user's, so the diff
// of this revision is exactly what change did. A change that leaves the file
// as it was records nothing. If the process dies after the file is written
// but before the commit, the next Sync records the change as an edit:
// attributed to the user, but not lost.
func (s *Store) Change(ctx context.Context, author, reason string, change func() error) (Revision, error) {
	var rev Revision
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		before, id, err := s.sync(ctx, tx)
		if err != nil {
			return err
		}
		if err := change(); err != nil {
			return err
		}
		after, err := s.read()
		if err != nil {
			return err
		}
		if after == before && id != 0 {
			rev, err = getRevision(ctx, tx, id)
			return err
		}
		id, err = s.insert(ctx, tx, after, author, reason)
		if err != nil {
			return err
		}
		rev, err = getRevision(ctx, tx, id)
		return err
	})
	return rev, err
}

// History lists the revisions, newest first, without their content; an
// editor's change is recorded first.
func (s *Store) History(ctx context.Context) ([]Revision, error) {
	if _, err := s.Sync(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, qHistory)
	if err != nil {
		return nil, fmt.Errorf("memory history: %w", err)
	}
	defer rows.Close()
	var out []Revision
	for rows.Next() {
		var r Revision
		var at string
		if err := rows.Scan(&r.ID, &r.Author, &r.Reason, &at, &r.SHA256); err != nil {
			return nil, fmt.Errorf("memory history: %w", err)
		}
		r.CreatedAt, _ = time.Parse(time.RFC3339Nano, at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Get returns revision id with its content (ErrNotFound if none).
func (s *Store) Get(ctx context.Context, id int64) (Revision, error) {
	return getRevision(ctx, s.db, id)
}

// Revert restores revision id as a new user revision; history only grows,
// so the version it replaces stays recorded.
func (s *Store) Revert(ctx context.Context, id int64) (Revision, error) {
	old, err := s.Get(ctx, id)
	if err != nil {
		return Revision{}, err
	}
	return s.Change(ctx, User, fmt.Sprintf("revert to revision %d", id), func() error {
		return memory.ReplaceMemory(s.home, []byte(old.Content))
	})
}

// Diff is a unified diff from old to new, "" when they are equal.
func Diff(oldName, old, newName, new string) string {
	return string(diff.Diff(oldName, []byte(old), newName, []byte(new)))
}

// read returns MEMORY.md's content, "" when it does not exist.
func (s *Store) read() (string, error) {
	b, err := os.ReadFile(filepath.Join(s.home, File))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// sync records the file as a user revision if it differs from the latest.
func (s *Store) sync(ctx context.Context, tx *sql.Tx) (string, int64, error) {
	content, err := s.read()
	if err != nil {
		return "", 0, err
	}
	var id int64
	var sum string
	reason := ReasonEdited
	switch err := tx.QueryRowContext(ctx, qLatest).Scan(&id, &sum); {
	case errors.Is(err, sql.ErrNoRows):
		if content == "" {
			return "", 0, nil
		}
		reason = ReasonInitial
	case err != nil:
		return "", 0, err
	case sum == hash(content):
		return content, id, nil
	}
	id, err = s.insert(ctx, tx, content, User, reason)
	return content, id, err
}

func (s *Store) insert(ctx context.Context, tx *sql.Tx, content, author, reason string) (int64, error) {
	reason = strings.Join(strings.Fields(reason), " ")
	res, err := tx.ExecContext(ctx, qInsert, content, hash(content), author, reason, s.now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return 0, fmt.Errorf("record revision: %w", err)
	}
	return res.LastInsertId()
}

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

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getRevision(ctx context.Context, q querier, id int64) (Revision, error) {
	var r Revision
	var at string
	err := q.QueryRowContext(ctx, qRevision, id).Scan(&r.ID, &r.Author, &r.Reason, &at, &r.SHA256, &r.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return Revision{}, notFound(fmt.Sprintf("no memory revision %d (see: agent memory history)", id))
	}
	if err != nil {
		return Revision{}, fmt.Errorf("memory revision %d: %w", id, err)
	}
	r.CreatedAt, _ = time.Parse(time.RFC3339Nano, at)
	return r, nil
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// AppendFact is memory.AppendFact recorded as a revision by author: the
// hook every writer of facts uses (agent memory add, the REPL's /remember,
// the memory_append tool), so each of their changes can be diffed and
// reverted.
func AppendFact(ctx context.Context, db *sql.DB, home, author, reason, text, section string, now func() time.Time) (memory.AppendResult, error) {
	var res memory.AppendResult
	_, err := NewStore(db, home, now).Change(ctx, author, reason, func() error {
		var err error
		res, err = memory.AppendFact(home, text, section)
		return err
	})
	return res, err
}
