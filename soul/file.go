package soul

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"agent/memory/confined"
	"agent/memory/errkind"
)

// readFile reads SOUL.md whole; it must be UTF-8 text.
func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errkind.Errorf(fs.ErrNotExist, "no SOUL.md at %s (run: agent init to create the default persona)", path)
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
// either the old file or the new one, never a mix (temp file, fsync, rename,
// fsync of the directory), and only inside the workspace (path's
// directory): a symlinked SOUL.md whose target is elsewhere in the
// workspace stays a symlink and its target is replaced; one leading outside
// is refused, as every write a tool makes is. The file keeps its permissions.
func writeAtomic(path string, data []byte) error {
	if err := confined.Replace(filepath.Dir(path), filepath.Base(path), data, nil); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
