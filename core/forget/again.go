package forget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/google/renameio/v2"

	"agent/core/forgotten"
	jrnl "agent/core/journal"
	"agent/memory"
)

// Again replaces, in the workspace files rels (slash paths, as a merge
// lists what it changed), every phrase forgotten here before, by its hash.
// A merge can bring a forgotten phrase back: another device's copy of a
// line, a journal line written there before it heard of the forget, a
// conflict copy merged by union. Run after the merge and before anything
// reads the files (the journals' replay) or commits them, it keeps the
// phrase out. It returns the files it changed.
func Again(ctx context.Context, home string, db *sql.DB, rels []string) ([]string, error) {
	if len(rels) == 0 {
		return nil, nil
	}
	finders, err := known(ctx, db)
	if err != nil || len(finders) == 0 {
		return nil, err
	}
	unlock, err := memory.Lock(home)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var changed []string
	for _, rel := range rels {
		if skipName(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
			continue
		}
		rewrite := func() error {
			file := filepath.Join(home, filepath.FromSlash(rel))
			// Only regular files: a link is neither read nor replaced.
			if fi, err := os.Lstat(file); err == nil && !fi.Mode().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("forget: read %s: %w", rel, err)
			}
			if !utf8.Valid(data) {
				return nil
			}
			out := data
			for _, f := range finders {
				if isJournal(rel) {
					out, _ = rewriteJournal(out, f)
				} else {
					s, _ := replaceFound(string(out), f)
					out = []byte(s)
				}
			}
			if string(out) == string(data) {
				return nil
			}
			mode := os.FileMode(0o600)
			if st, err := os.Stat(file); err == nil {
				mode = st.Mode().Perm()
			}
			if err := renameio.WriteFile(file, out, mode); err != nil {
				return fmt.Errorf("forget: rewrite %s: %w", rel, err)
			}
			changed = append(changed, rel)
			return nil
		}
		if isJournal(rel) {
			err = jrnl.Locked(home, rewrite)
		} else {
			err = rewrite()
		}
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// known are the finders of every phrase forgotten here (pending ones are
// ApplyPending's).
func known(ctx context.Context, db *sql.DB) ([]finder, error) {
	list, err := forgotten.Known(ctx, db)
	if err != nil {
		return nil, err
	}
	return findersOf(ctx, db, list)
}
