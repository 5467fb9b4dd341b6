package skills

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/renameio/v2"

	"agent/soul/revisions"
)

// Author says who wrote a revision.
type Author = revisions.Author

// Authors of revisions. Edits made outside agent are the user's.
const (
	User  = revisions.User
	Agent = revisions.Agent
)

// ReasonInitial is recorded for a skill agent first finds on disk.
const ReasonInitial = revisions.ReasonInitial

// Revision is one saved version of a workspace skill's SKILL.md, or its
// removal.
type Revision = revisions.Revision

// kind is the skills in the revisions store, one name per skill; revision
// numbers count across all skills.
var kind = revisions.Kind{Key: "skill", NotFound: func(name string, id int64) error {
	return notFoundf("skill %s has no revision %d", name, id)
}}

// Store writes the workspace's skills (<home>/skills/NAME/SKILL.md) and keeps
// every version in state.db. The db must use immediate write transactions
// (core's does): each file is written while that lock is held, so two
// processes saving at once cannot interleave file and revision. Writes go
// through os.Root at <home>/skills, so nothing outside it is ever written.
type Store struct {
	revs *revisions.Store
	home string
}

// NewStore returns a Store for the workspace at home; now is the clock
// (time.Now if nil).
func NewStore(db *sql.DB, home string, now func() time.Time) *Store {
	return &Store{revs: revisions.New(db, kind, now), home: home}
}

// Dir is the workspace's skills directory.
func (s *Store) Dir() string { return filepath.Join(s.home, Dir) }

func (s *Store) file(name string) string { return filepath.Join(s.Dir(), name, FileName) }

// Sync records what an editor did to the named workspace skills since
// agent last looked: a changed or new SKILL.md becomes a user revision, a
// deleted one a removal.
func (s *Store) Sync(ctx context.Context, names ...string) error {
	return s.revs.Update(ctx, func(tx *revisions.Tx) error {
		for _, n := range names {
			if _, _, err := s.sync(tx, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// sync brings the history of name up to the file on disk and returns the
// file's content, or exists=false when there is none.
func (s *Store) sync(tx *revisions.Tx, name string) (content string, exists bool, err error) {
	b, err := os.ReadFile(s.file(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", false, fmt.Errorf("read %s: %w", s.file(name), err)
	default:
		content, exists = string(b), true
	}
	if _, err := tx.Notice(name, content, exists); err != nil {
		return "", false, err
	}
	return content, exists, nil
}

// Save writes the skill name with description and body, by author, as one
// revision. An existing SKILL.md keeps its other frontmatter keys. The body
// is instructions only: nothing but SKILL.md is written, nothing is run.
// The agent may not save an empty body or one over MaxBodyBytes.
func (s *Store) Save(ctx context.Context, name, description, body string, author Author, reason string) (Revision, error) {
	if err := ValidName(name); err != nil {
		return Revision{}, err
	}
	if err := ValidDescription(description); err != nil {
		return Revision{}, err
	}
	description = strings.TrimSpace(description)
	if !utf8.ValidString(body) || !utf8.ValidString(description) {
		return Revision{}, invalidf("skill %s: not valid UTF-8 text", name)
	}
	if author == Agent && strings.TrimSpace(body) == "" {
		return Revision{}, invalidf("skill %s: the body is empty; write the instructions", name)
	}
	if author == Agent && len(body) > MaxBodyBytes {
		return Revision{}, invalidf("skill %s: the body is %d bytes; the limit is %d", name, len(body), MaxBodyBytes)
	}
	var rev Revision
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		cur, _, err := s.sync(tx, name)
		if err != nil {
			return err
		}
		content, err := Render(cur, name, description, body)
		if err != nil {
			return err
		}
		if _, err := Parse(name, []byte(content)); err != nil {
			return err
		}
		rev, err = s.write(tx, name, content, author, reason)
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("save skill %s: %w", name, err)
	}
	return rev, nil
}

// SaveFile writes content as the whole SKILL.md of name, by author; it must
// be a valid skill of that name (ErrInvalid says why not).
func (s *Store) SaveFile(ctx context.Context, name, content string, author Author, reason string) (Revision, error) {
	if err := ValidName(name); err != nil {
		return Revision{}, err
	}
	if _, err := Parse(name, []byte(content)); err != nil {
		return Revision{}, fmt.Errorf("save skill %s: %w", name, err)
	}
	var rev Revision
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		if _, _, err := s.sync(tx, name); err != nil {
			return err
		}
		var err error
		rev, err = s.write(tx, name, content, author, reason)
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("save skill %s: %w", name, err)
	}
	return rev, nil
}

// write records content as a revision and writes the file, inside tx (a
// failed write rolls the row back). Saving what the file holds records
// nothing and returns the current revision. The caller has synced name.
func (s *Store) write(tx *revisions.Tx, name, content string, author Author, reason string) (Revision, error) {
	if author != User && author != Agent {
		return Revision{}, invalidf("unknown author %q (user or agent)", author)
	}
	reason, err := checkReason(reason)
	if err != nil {
		return Revision{}, err
	}
	if cur, ok, err := tx.Holds(name, content); err != nil || ok {
		return cur, err
	}
	return tx.Record(name, content, author, reason, func() error { return s.writeFile(name, content) })
}

// writeFile replaces <home>/skills/name/SKILL.md atomically, through an
// os.Root: a skill directory that is a link leading out of <home>/skills is
// refused, not followed.
func (s *Store) writeFile(name, content string) error {
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.Dir(), err)
	}
	root, err := os.OpenRoot(s.Dir())
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", filepath.Join(s.Dir(), name), err)
	}
	sub, err := root.OpenRoot(name)
	if err != nil {
		return fmt.Errorf("write %s: %s (a skill the agent writes must live inside %s)", s.file(name), pathErr(err), s.Dir())
	}
	defer sub.Close()
	if err := renameio.WriteFile(FileName, []byte(content), 0o600, renameio.WithRoot(sub)); err != nil {
		return fmt.Errorf("write %s: %w", s.file(name), err)
	}
	return syncDir(sub, ".")
}

// syncDir makes a rename in dir durable.
func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// History returns name's revisions, newest first, without Content, after
// recording any editor change.
func (s *Store) History(ctx context.Context, name string) ([]Revision, error) {
	if err := s.Sync(ctx, name); err != nil {
		return nil, err
	}
	return s.revs.History(ctx, name)
}

// Get returns revision id of name with its content.
func (s *Store) Get(ctx context.Context, name string, id int64) (Revision, error) {
	return s.revs.Get(ctx, name, id)
}

// Revert restores revision id of name as a new user revision; it also
// brings back a removed skill. Reverting to what the file holds records
// nothing.
func (s *Store) Revert(ctx context.Context, name string, id int64) (Revision, error) {
	var rev Revision
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		old, err := tx.Get(name, id)
		if err != nil {
			return err
		}
		if old.Removed {
			return invalidf("revision %d of skill %s is its removal; revert to a revision before it", id, name)
		}
		if _, _, err := s.sync(tx, name); err != nil {
			return err
		}
		rev, err = s.write(tx, name, old.Content, User, fmt.Sprintf("revert to revision %d", id))
		return err
	})
	if err != nil {
		return Revision{}, fmt.Errorf("revert skill %s: %w", name, err)
	}
	return rev, nil
}

// Removal is what Remove did.
type Removal struct {
	Revision Revision
	// Left are the other files of the skill's directory, left in place
	// (relative to it); the directory is removed only when empty.
	Left []string
}

// Remove deletes the workspace skill name's SKILL.md, recording the
// removal as a revision (so revert brings it back). Other files in its
// directory are the user's and stay; the directory goes only when empty.
func (s *Store) Remove(ctx context.Context, name string, author Author, reason string) (Removal, error) {
	if err := ValidName(name); err != nil {
		return Removal{}, err
	}
	var out Removal
	err := s.revs.Update(ctx, func(tx *revisions.Tx) error {
		_, exists, err := s.sync(tx, name)
		if err != nil {
			return err
		}
		if !exists {
			return notFoundf("no skill %s in %s", name, s.Dir())
		}
		if reason, err = checkReason(reason); err != nil {
			return err
		}
		out.Revision, err = tx.RecordRemoval(name, author, reason, func() error {
			root, err := os.OpenRoot(s.Dir())
			if err != nil {
				return err
			}
			defer root.Close()
			if err := root.Remove(filepath.Join(name, FileName)); err != nil {
				return fmt.Errorf("remove %s: %w", s.file(name), err)
			}
			if err := root.Remove(name); err != nil {
				// Not empty: the rest is the user's. An unreadable listing
				// only leaves Left empty.
				out.Left, _, _ = Files(Skill{Name: name, Dir: filepath.Join(s.Dir(), name)})
			}
			return syncDir(root, ".")
		})
		return err
	})
	if err != nil {
		return Removal{}, fmt.Errorf("remove skill %s: %w", name, err)
	}
	return out, nil
}

// checkReason folds a reason the model may write, in this package's errors.
func checkReason(reason string) (string, error) {
	r, err := revisions.CheckReason(reason)
	if err != nil {
		return "", invalidf("%v", err)
	}
	return r, nil
}
