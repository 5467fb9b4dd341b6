package soul

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// readFile reads SOUL.md whole; it must be UTF-8 text.
func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &kindError{kind: fs.ErrNotExist, msg: fmt.Sprintf("no SOUL.md at %s (run: agent init to create the default persona)", path)}
	}
	if err != nil {
		return "", fmt.Errorf("read SOUL.md: %w", err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not valid UTF-8 text (first bad byte at offset %d); fix it in an editor", path, firstInvalid(b))
	}
	return string(b), nil
}

// Check reads SOUL.md at path as Load would, without recording anything: it
// fails exactly when Load would fail on the file, and returns what Load
// would warn about. For agent doctor.
func Check(path string) (size int, warnings []string, err error) {
	content, err := readFile(path)
	if err != nil {
		return 0, nil, err
	}
	return len(content), (&Store{path: path}).warnings(content), nil
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// writeAtomic replaces path with data so that a reader (or a crash) sees
// either the old file or the new one, never a mix: temp file in the same
// directory, fsync, rename, fsync the directory. A symlinked SOUL.md (kept in
// a dotfiles repository, say) stays a symlink: its target is replaced. The
// file keeps its permissions.
func writeAtomic(path string, data []byte) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	perm := fs.FileMode(0o600)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("replace %s: %w", target, err)
	}
	// The rename is durable only once the directory entry is on disk.
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
