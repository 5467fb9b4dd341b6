package devsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/google/renameio/v2"

	"agent/core/journal"
	"agent/memory"
)

// Folded is a conflict copy merged into its original.
type Folded struct {
	Copy      string `json:"copy"` // workspace slash paths
	Into      string `json:"into"`
	Conflicts int    `json:"conflicts"`
}

// FoldCopies merges the conflict copies a file-sync tool (Syncthing,
// Dropbox, iCloud, OneDrive) left of the daily logs, MEMORY.md, SOUL.md and
// the journals into their originals, by the merge rules of Merge without a
// base (every line of both kept), then removes them. It costs a directory
// listing of the three places such copies appear, so every command can run
// it first. A copy that cannot be merged is left where it is and reported.
func FoldCopies(home string) ([]Folded, error) {
	var out []Folded
	var errs []error
	for _, dir := range []string{".", "logs", JournalDir} {
		f, err := os.Open(filepath.Join(home, filepath.FromSlash(dir)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, name := range names {
			orig, ok := memory.ConflictCopyOf(name)
			if !ok {
				continue
			}
			rel, copyRel := path.Join(dir, orig), path.Join(dir, name)
			if !foldable(rel) {
				continue
			}
			fo := Folded{Copy: copyRel, Into: rel}
			merge := func() error {
				var err error
				fo.Conflicts, err = fold(home, copyRel, rel)
				return err
			}
			// A journal is appended under its own lock (core/journal), the
			// memory files under memory's: the fold holds the one its
			// original's writers take.
			lock := memory.Locked
			if isJournal(rel) {
				lock = journal.Locked
			}
			err := lock(home, merge)
			if err != nil {
				errs = append(errs, fmt.Errorf("merge %s into %s: %w", copyRel, rel, err))
				continue
			}
			out = append(out, fo)
		}
	}
	return out, errors.Join(errs...)
}

// foldable is a file a copy of which is merged: a workspace memory file.
func foldable(rel string) bool {
	return rel == "MEMORY.md" || rel == "SOUL.md" || isLog(rel) || isJournal(rel)
}

// fold merges the copy into the original (written atomically, its mode
// kept) and only then removes the copy; a missing original is the copy,
// renamed.
func fold(home, copyRel, rel string) (int, error) {
	cp, orig := filepath.Join(home, filepath.FromSlash(copyRel)), filepath.Join(home, filepath.FromSlash(rel))
	theirs, err := os.ReadFile(cp)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(orig)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, os.Rename(cp, orig)
	}
	if err != nil {
		return 0, err
	}
	ours, err := os.ReadFile(orig)
	if err != nil {
		return 0, err
	}
	r := Merge(rel, nil, ours, theirs)
	if err := renameio.WriteFile(orig, r.Data, fi.Mode().Perm()); err != nil {
		return 0, err
	}
	return r.Conflicts, os.Remove(cp)
}
