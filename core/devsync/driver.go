package devsync

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// DriverFiles is git's merge-driver call (%O %A %B %P): it merges the
// base, ours and theirs files by the rules of the workspace path rel and
// writes the result over ours, where git takes it from. It never reports a
// conflict to git: where both sides changed the same lines, both are kept.
func DriverFiles(base, ours, theirs, rel string) (Result, error) {
	read := func(p string) ([]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("merge-file %s: %w", rel, err)
		}
		return b, nil
	}
	b, err := read(base)
	if err != nil {
		return Result{}, err
	}
	o, err := read(ours)
	if err != nil {
		return Result{}, err
	}
	t, err := read(theirs)
	if err != nil {
		return Result{}, err
	}
	r := Merge(filepath.ToSlash(rel), b, o, t)
	if err := renameio.WriteFile(ours, r.Data, 0o644); err != nil {
		return r, fmt.Errorf("merge-file %s: %w", rel, err)
	}
	return r, nil
}
