package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestClassifySaysTheDisk: an injected errno, however wrapped, is said as
// the disk's state; anything else is not a disk problem.
func TestClassifySaysTheDisk(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		err  error
		kind Kind
		says string
	}{
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, Full, "the disk is full ("},
		{fmt.Errorf("append: %w", &fs.PathError{Op: "open", Path: "x", Err: syscall.EDQUOT}), Full, "the disk is full ("},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, ReadOnly, dir + " is on a read-only file system"},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, NotWritable, dir + " is not writable (permission denied)"},
	} {
		p := Classify(dir, c.err)
		if p == nil || p.Kind != c.kind || !strings.HasPrefix(p.Error(), c.says) {
			t.Errorf("Classify(%v) = %v, want kind %d saying %q", c.err, p, c.kind, c.says)
			continue
		}
		if !errors.Is(p, ErrCannotWrite) || !errors.Is(p, c.err) {
			t.Errorf("%v: not ErrCannotWrite, or the cause is lost", p)
		}
		if strings.Contains(p.Error()+p.Outcome(), "damaged") && !strings.Contains(p.Outcome(), "nothing is damaged") {
			t.Errorf("%v calls something damaged", p)
		}
	}
	for _, err := range []error{errors.New("database disk image is malformed"), &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}} {
		if p := Classify(dir, err); p != nil {
			t.Errorf("Classify(%v) = %v, want nil", err, p)
		}
	}
}

// TestCheckLooksAtTheDirectory: a failure whose error names no errno is
// still told by the directory itself; a writable one with room is nothing.
func TestCheckLooksAtTheDirectory(t *testing.T) {
	dir := t.TempDir()
	if p := Check(dir, errors.New("unable to open database file")); p != nil {
		t.Errorf("a writable directory with room: %v", p)
	}
	if Free(dir) <= 0 {
		t.Errorf("Free(%s) = %d", dir, Free(dir))
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 12_345: "12 KB", 3_400_000: "3.4 MB", 1_200_000_000: "1.2 GB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
