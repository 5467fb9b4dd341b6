// Package memrev keeps the revisions of MEMORY.md in state.db: every change
// the agent makes (a fact added, a fact superseded, a revert) is recorded
// with its author and reason, and an edit made with an editor is recorded
// as the user's revision the first time it is noticed, so any version can be
// diffed and restored and no line is ever lost for good.
package memrev

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"agent/memory"
	"agent/soul/revisions"
)

// Migrations holds this package's state.db schema, applied by core.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// File is MEMORY.md's name in the workspace.
const File = "MEMORY.md"

// Authors of revisions.
const (
	User  = revisions.User
	Agent = revisions.Agent
)

// Reasons recorded for revisions noticed rather than made.
const (
	ReasonInitial = revisions.ReasonInitial
	ReasonEdited  = revisions.ReasonEdited
)

// ErrNotFound is an unknown revision: memory's, which the CLI maps to exit 3.
var ErrNotFound = memory.ErrNotFound

// notFound is a whole user-facing message that matches ErrNotFound.
type notFound string

func (e notFound) Error() string { return string(e) }
func (e notFound) Unwrap() error { return ErrNotFound } // and so errkind.ErrNotFound

// kind is MEMORY.md in the revisions store: one file, so no name.
var kind = revisions.Kind{Key: "memory", NotFound: func(_ string, id int64) error {
	return notFound(fmt.Sprintf("no memory revision %d (see: agent memory history)", id))
}}

// Revision is one recorded version of MEMORY.md (Name is always "").
type Revision = revisions.Revision

// Store records MEMORY.md's revisions. The db must use immediate write
// transactions (core's does): a change runs while the transaction holds the
// write lock, so two processes cannot interleave file and revision.
type Store struct {
	revs *revisions.Store
	home string
}

// NewStore returns the store for the workspace at home; now is the clock
// (time.Now if nil).
func NewStore(db *sql.DB, home string, now func() time.Time) *Store {
	return &Store{revs: revisions.New(db, kind, now), home: home}
}

// Sync records MEMORY.md as a user revision when it differs from the latest
// one (an editor changed it), and returns the revision matching the file
// (0 when there is no file and no revision).
func (s *Store) Sync(ctx context.Context) (int64, error) {
	var id int64
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		var err error
		id, err = s.sync(tx)
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
func (s *Store) Change(ctx context.Context, author revisions.Author, reason string, change func() error) (Revision, error) {
	var rev Revision
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		if _, err := s.sync(tx); err != nil {
			return err
		}
		if err := change(); err != nil {
			return err
		}
		after, err := s.read()
		if err != nil {
			return err
		}
		if cur, ok, err := tx.Holds("", after); err != nil || ok {
			rev = cur
			return err
		}
		rev, err = tx.Record("", after, author, reason, nil)
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
	return s.revs.History(ctx, "")
}

// Get returns revision id with its content (ErrNotFound if none).
func (s *Store) Get(ctx context.Context, id int64) (Revision, error) {
	return s.revs.Get(ctx, "", id)
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
// A missing MEMORY.md is an empty one (memory's writers create it), and is
// not recorded while there is no revision yet.
func (s *Store) sync(tx *revisions.Tx) (int64, error) {
	content, err := s.read()
	if err != nil {
		return 0, err
	}
	if content == "" {
		if _, ok, err := tx.Latest(""); err != nil || !ok {
			return 0, err
		}
	}
	return tx.Notice("", content, true)
}

// AppendFact is memory.AppendFact recorded as a revision by author: the
// hook every writer of facts uses (agent memory add, the REPL's /remember,
// the memory_append tool), so each of their changes can be diffed and
// reverted.
func AppendFact(ctx context.Context, db *sql.DB, home string, author revisions.Author, reason, text, section string, now func() time.Time) (memory.AppendResult, error) {
	var res memory.AppendResult
	_, err := NewStore(db, home, now).Change(ctx, author, reason, func() error {
		var err error
		res, err = memory.AppendFact(home, text, section)
		return err
	})
	return res, err
}
