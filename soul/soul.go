// Package soul keeps SOUL.md, the agent's persona: loading it with a size
// cap, saving it atomically, and a revision for every version, including
// edits made with an editor, so any version can be diffed and restored. The
// revisions live in the workspace's one revisions store (soul/revisions).
package soul

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"agent/memory/errkind"
	"agent/soul/revisions"
)

// MaxBytes caps SOUL.md: 16 KiB, roughly 4,000 tokens, injected every turn.
// The agent cannot save more; a user's larger file is used whole, with a
// warning, never cut.
const MaxBytes = 16 << 10

// Author says who wrote a revision.
type Author = revisions.Author

// Authors of revisions. Edits made outside agent are the user's.
const (
	User  = revisions.User
	Agent = revisions.Agent
)

// Reasons recorded for revisions agent notices rather than makes.
const (
	ReasonInitial = revisions.ReasonInitial
	ReasonEdited  = revisions.ReasonEdited
)

// Revision is one saved version of SOUL.md (Name is always "").
type Revision = revisions.Revision

// kind is SOUL.md in the revisions store: one file, so no name.
var kind = revisions.Kind{Key: "soul", NotFound: func(_ string, id int64) error {
	return notFoundf("no soul revision %d", id)
}}

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
	revs *revisions.Store
	path string
}

// NewStore returns a Store for the SOUL.md at path; now is the clock
// (time.Now if nil).
func NewStore(db *sql.DB, path string, now func() time.Time) *Store {
	return &Store{revs: revisions.New(db, kind, now), path: path}
}

// Load reads SOUL.md. If it differs from the latest revision (an editor
// changed it) or there is no revision yet, it is first recorded as a user
// revision, so nothing written later can lose that edit.
func (s *Store) Load(ctx context.Context) (Soul, error) {
	content, err := readFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		// The persona's revisions live in state.db: point at the user's own
		// latest one before the default.
		if last, ok, _ := s.revs.Latest(ctx, ""); ok {
			return Soul{}, errkind.Errorf(fs.ErrNotExist, "no SOUL.md at %s; restore your persona with: agent soul revert %d (its latest revision; see agent soul history), or run agent init for the default one", s.path, last.ID)
		}
	}
	if err != nil {
		return Soul{}, err
	}
	// The common case, file unchanged, needs no write lock.
	last, ok, err := s.revs.Latest(ctx, "")
	if err != nil {
		return Soul{}, fmt.Errorf("load SOUL.md: %w", err)
	}
	id := last.ID
	if !ok || last.SHA256 != revisions.Hash(content) {
		err = s.revs.Update(ctx, func(tx *revisions.Tx) error {
			content, id, err = s.sync(tx, false)
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
	reason, err := revisions.CheckReason(reason)
	if err != nil {
		return Revision{}, invalidf("save SOUL.md: %v", err)
	}
	var rev Revision
	err = s.revs.Update(ctx, func(tx *revisions.Tx) error {
		rev, err = s.write(tx, content, author, reason, false)
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
	return s.revs.History(ctx, "")
}

// Get returns revision id with its content; ErrNotFound if there is none.
func (s *Store) Get(ctx context.Context, id int64) (Revision, error) {
	return s.revs.Get(ctx, "", id)
}

// Revert restores revision id as a new user revision (history only grows).
// It works when SOUL.md is missing; if the file holds an unrecorded edit,
// that edit is recorded first. Reverting to what the file already holds
// records nothing and returns the current revision.
func (s *Store) Revert(ctx context.Context, id int64) (Revision, error) {
	var rev Revision
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		old, err := tx.Get("", id)
		if err != nil {
			return err
		}
		rev, err = s.write(tx, old.Content, User, fmt.Sprintf("revert to revision %d", id), true)
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("revert SOUL.md: %w", err)
	}
	return rev, nil
}

// KeepVersion records content as a user revision without writing SOUL.md:
// a device sync keeps the other device's version this way before the merged
// file replaces this one (which the next reader records in turn). An
// unrecorded edit of the file is recorded first, so it stays the older one.
func (s *Store) KeepVersion(ctx context.Context, content, reason string) (Revision, error) {
	if !utf8.ValidString(content) {
		return Revision{}, invalidf("keep a SOUL.md version: content is not valid UTF-8")
	}
	var rev Revision
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		if _, _, err := s.sync(tx, true); err != nil {
			return err
		}
		var err error
		rev, err = tx.Record("", content, User, reason, nil)
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("keep a SOUL.md version: %w", err)
	}
	return rev, nil
}

// sync records SOUL.md as a user revision if it differs from the latest one,
// and returns its content and matching revision. With allowMissing a missing
// file is not an error: it returns revision 0.
func (s *Store) sync(tx *revisions.Tx, allowMissing bool) (string, int64, error) {
	content, err := readFile(s.path)
	if allowMissing && errors.Is(err, fs.ErrNotExist) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	id, err := tx.Notice("", content, true)
	return content, id, err
}

// write makes content the new SOUL.md inside tx: editor changes recorded
// first, then the revision row, then the file. A failed file write rolls
// the row back with the transaction.
func (s *Store) write(tx *revisions.Tx, content string, author Author, reason string, allowMissing bool) (Revision, error) {
	cur, curID, err := s.sync(tx, allowMissing)
	if err != nil {
		return Revision{}, err
	}
	if curID != 0 && cur == content {
		return tx.Get("", curID)
	}
	return tx.Record("", content, author, reason, func() error {
		return writeAtomic(s.path, []byte(content))
	})
}
