package index

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockName is the file whose flock orders index.db's users against a full
// rebuild's swap. Hidden, so the walk never indexes it.
const lockName = ".index.lock"

// swapLock makes "check which file index.db is, then use it" atomic with
// respect to a swap. Every operation holds it shared; a swap holds it
// exclusive while it renames. Without it, a process that checked the inode
// just before another's rename went on to use the orphaned file: its writes
// were lost, and, since SQLite names the rollback journal after the path,
// its next lock could take the new file's live journal for a hot journal of
// its own and roll it back ("disk I/O error" in the other process). The
// journal is why this is a lock and not a retry: the damage happens inside
// SQLite, before any check of ours could run. A plain flock, not
// gofrs/flock: the shared-to-exclusive conversion on one descriptor is the
// point, and gofrs/flock does not promise it.
type swapLock struct {
	home string
	f    *os.File // opened on first use, kept for the Index's life
}

func (l *swapLock) flock(how int) error {
	if l.f == nil {
		f, err := os.OpenFile(filepath.Join(l.home, lockName), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("index lock: %w", err)
		}
		l.f = f
	}
	for {
		err := syscall.Flock(int(l.f.Fd()), how)
		if err != syscall.EINTR {
			if err != nil {
				return fmt.Errorf("index lock: %w", err)
			}
			return nil
		}
	}
}

// shared is held for the whole of an operation on index.db.
func (l *swapLock) shared() error { return l.flock(syscall.LOCK_SH) }

// exclusive converts a held shared lock for a swap. The conversion releases
// the shared lock before waiting, so two swappers cannot deadlock.
func (l *swapLock) exclusive() error { return l.flock(syscall.LOCK_EX) }

func (l *swapLock) unlock() {
	if l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	}
}

func (l *swapLock) close() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
