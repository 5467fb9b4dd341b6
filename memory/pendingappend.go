package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/renameio/v2"
)

// PendingAppendFile records an append in progress that could be torn: the
// pending append, memory's write-ahead record (not core/journal's
// journals; the on-disk name is the old one, so a record an older binary
// left is still finished). A write(2) to a regular file is not atomic
// against kill -9: Linux copies it a page at a time and stops between pages
// when the process is being killed, so a note that spans a page boundary
// can end up half written. Before such an append, its path, offset and
// bytes are saved here (atomically, synced); after it, the record is
// removed. The next writer, holding the lock, finds a record left by a
// killed one and finishes the append — roll forward, never truncate: the
// log stays append-only and the note whole.
const PendingAppendFile = ".memory.journal"

// appendUntorn appends b to path (workspace-relative rel), recording
// it first when it might be torn. The caller holds the lock.
func appendUntorn(home, rel string, b []byte) error {
	path := filepath.Join(home, rel)
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	page := int64(os.Getpagesize())
	if size%page+int64(len(b)) <= page {
		return appendBytes(home, rel, b) // within one page: one copy, cannot tear
	}
	if err := writePendingAppend(home, rel, size, b); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := appendBytes(home, rel, b); err != nil {
		return err // the next writer rolls it forward if part of it landed
	}
	return os.Remove(filepath.Join(home, PendingAppendFile))
}

// writePendingAppend puts the record in place whole (renameio: temp file, sync,
// rename), so a writer killed while writing it leaves none rather than a
// wrong one.
func writePendingAppend(home, rel string, offset int64, b []byte) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s\n%d\n", rel, offset)
	buf.Write(b)
	return renameio.WriteFile(filepath.Join(home, PendingAppendFile), buf.Bytes(), 0o600)
}

// recoverAppend finishes an append a killed writer left half done, if any.
// The caller holds the lock. Bytes after the recorded offset that are not
// the record's own (an editor's) are left alone, as is a file that was
// truncated since: only our own torn note is completed.
func recoverAppend(home string) error {
	jpath := filepath.Join(home, PendingAppendFile)
	data, err := os.ReadFile(jpath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", jpath, err)
	}
	rel, rest, ok1 := strings.Cut(string(data), "\n")
	off, payload, ok2 := strings.Cut(rest, "\n")
	offset, err := strconv.ParseInt(off, 10, 64)
	if !ok1 || !ok2 || err != nil || !filepath.IsLocal(rel) {
		return os.Remove(jpath) // not ours to act on
	}
	path := filepath.Join(home, rel)
	if err := insideWorkspace(home, path); err != nil {
		return os.Remove(jpath)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return os.Remove(jpath)
	}
	if err != nil {
		return fmt.Errorf("recover %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("recover %s: %w", path, err)
	}
	written := fi.Size() - offset
	if written > 0 && written < int64(len(payload)) {
		got := make([]byte, written)
		if _, err := f.ReadAt(got, offset); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("recover %s: %w", path, err)
		}
		if string(got) == payload[:written] {
			if _, err := f.Write([]byte(payload[written:])); err != nil {
				return fmt.Errorf("recover %s: %w", path, err)
			}
			if err := f.Sync(); err != nil {
				return fmt.Errorf("recover %s: %w", path, err)
			}
		}
	}
	return os.Remove(jpath)
}
