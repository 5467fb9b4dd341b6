// Package confined writes files inside one directory tree (a workspace) and
// nowhere else. Every operation goes through an os.Root, so no path, ".."
// or symlink — including one swapped in between a check and the write — can
// lead a write outside the tree. Symlinks that stay inside are followed: a
// file kept elsewhere in the workspace through a link is written there
// (os.Root refuses an absolute link on the way to a file, even one naming a
// place inside: such a write fails rather than guesses).
//
// renameio and friends cannot be used here: they take plain paths, and a
// plain path is resolved again by the kernel at each step.
package confined

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is the error for a write that would leave the tree.
var ErrOutside = errors.New("leads outside the workspace")

// Append appends b to rel (created with mode 0600 if missing) in one write
// and syncs it.
func Append(root, rel string, b []byte) error {
	return withRoot(root, func(r *os.Root) error {
		f, err := r.OpenFile(rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return outside(rel, err)
		}
		return fill(f, b, 0)
	})
}

// CreateSynced creates name in r, where nothing may be yet (mode 0600), with
// data, on disk before it returns: for a caller that holds its own os.Root
// (the importer fills a staging folder file by file).
func CreateSynced(r *os.Root, name string, data []byte) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return fill(f, data, 0)
}

// withRoot runs f on an os.Root opened on root.
func withRoot(root string, f func(*os.Root) error) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	return f(r)
}

// fill writes data to f, sets perm (unless 0), syncs and closes it; the
// first error wins.
func fill(f *os.File, data []byte, perm fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil && perm != 0 {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Replace replaces rel with data atomically: a temp file beside it, fsync,
// rename, fsync of the directory. A symlink at rel stays a symlink and its
// target (inside the tree) is replaced; the file keeps its permissions (0600
// when new). ok, when not nil, is asked just before the rename; false aborts
// with ErrAborted and leaves rel as it was.
func Replace(root, rel string, data []byte, ok func() bool) error {
	return withRoot(root, func(r *os.Root) error { return replace(r, root, rel, data, ok) })
}

func replace(r *os.Root, root, rel string, data []byte, ok func() bool) error {
	target, err := resolve(r, root, rel)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o600)
	if fi, err := r.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	tmp, tmpName, err := createTemp(r, dir, filepath.Base(target))
	if err != nil {
		return outside(rel, err)
	}
	defer r.Remove(tmpName) // fails harmlessly once renamed
	// A failed write must stop the rename: a short temp file must never
	// replace the user's file.
	if err := fill(tmp, data, perm); err != nil {
		return err
	}
	if ok != nil && !ok() {
		return ErrAborted
	}
	if err := r.Rename(tmpName, target); err != nil {
		return outside(rel, err)
	}
	// The rename is durable only once the directory entry is on disk.
	d, err := r.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ErrAborted is Replace's error when ok said no.
var ErrAborted = errors.New("aborted before the rename")

// CreateNew writes a complete file at rel only if nothing is there yet (not
// even a dangling symlink): the content goes to a temp file first and is
// hard-linked into place, which fails rather than replaces when another
// process got there first. created is false when rel existed.
func CreateNew(root, rel string, data []byte) (created bool, err error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return false, err
	}
	defer r.Close()
	if _, err := r.Lstat(rel); err == nil {
		return false, nil
	}
	tmp, tmpName, err := createTemp(r, filepath.Dir(rel), filepath.Base(rel))
	if err != nil {
		return false, outside(rel, err)
	}
	defer r.Remove(tmpName)
	if err := fill(tmp, data, 0); err != nil {
		return false, err
	}
	if err := r.Link(tmpName, rel); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, outside(rel, err)
	}
	return true, nil
}

// Mkdir creates the directory rel (mode perm); one that exists is fine.
func Mkdir(root, rel string, perm fs.FileMode) error {
	return withRoot(root, func(r *os.Root) error {
		if err := r.Mkdir(rel, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return outside(rel, err)
		}
		return nil
	})
}

// Inside reports, as an error wrapping ErrOutside, whether rel would be
// reached through a symlink leading outside the tree; nil when it stays
// inside or does not exist. For files others open by path (SQLite's
// databases): a check, not a guarantee, since the open comes after it.
func Inside(root, rel string) error {
	return withRoot(root, func(r *os.Root) error {
		target, err := resolve(r, root, rel)
		if err != nil {
			return err
		}
		if _, err := r.Stat(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return outside(rel, err)
		}
		return nil
	})
}

// createTemp makes a new hidden file beside name in dir: ".name.tmpXXXX",
// so nothing reads it as memory.
func createTemp(r *os.Root, dir, name string) (*os.File, string, error) {
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		p := filepath.Join(dir, "."+name+".tmp"+hex.EncodeToString(b[:]))
		f, err := r.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, p, err
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many collisions", dir)
}

// resolve follows the symlinks at rel's last element, each hop required to
// stay in the tree, and returns the path of the file (or of where it will
// be) relative to the root. Directory elements are os.Root's to check.
func resolve(r *os.Root, root, rel string) (string, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	for hops := 0; ; hops++ {
		fi, err := r.Lstat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return rel, nil
		}
		if err != nil {
			return "", outside(rel, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return rel, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", rel)
		}
		link, err := r.Readlink(rel)
		if err != nil {
			return "", err
		}
		next := link
		if filepath.IsAbs(link) {
			if next, err = within(real, link); err != nil {
				if next, err = within(root, link); err != nil {
					return "", fmt.Errorf("%s (to %s): not writing through that symlink: %w", rel, link, ErrOutside)
				}
			}
		} else {
			next = filepath.Join(filepath.Dir(rel), link)
		}
		if next == ".." || strings.HasPrefix(next, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%s (to %s): not writing through that symlink: %w", rel, link, ErrOutside)
		}
		rel = next
	}
}

// within is path relative to dir, or an error when it is not below it.
func within(dir, path string) (string, error) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", ErrOutside
	}
	return rel, nil
}

// outside turns os.Root's refusal into ErrOutside, naming rel.
func outside(rel string, err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%s: not writing through a symlink that %w", rel, ErrOutside)
	}
	return err
}
