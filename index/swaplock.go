package index

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"agent/index/sqlitedb"
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
//
// The protocol is the lock's state, and its methods are the only moves:
//
//	unlocked --hold--> shared --upgrade--> exclusive --downgrade--> shared
//	any --release--> unlocked
//
// A move from the wrong state is a bug and an error. flock converts a lock
// by dropping it first and then waiting for the new one (flock(2)): so two
// upgraders cannot deadlock, but nothing learned under the shared lock may
// be trusted after an upgrade without looking again (swap only renames, and
// opens what it renamed). A conversion that fails leaves nothing held
// (unlocked), and the operation must stop: its caller returns the error.
type swapLock struct {
	home string
	// mu guards f and state. An Index is used by one goroutine at a time,
	// but it may be handed over through what the race detector cannot see
	// (a watcher answering a search over a unix socket, the vouch test).
	mu    sync.Mutex
	f     *os.File // opened on first use, kept for the Index's life
	state lockState
	// readOnly is why the lock file could be opened for reading only (a
	// read-only or unwritable workspace): nothing can swap index.db there,
	// and the index is searched as it is (Search).
	readOnly error
}

// lockState is what a swapLock holds.
type lockState int

const (
	unlocked lockState = iota
	shared
	exclusive
)

func (s lockState) String() string {
	return [...]string{"unlocked", "shared", "exclusive"}[s]
}

// hold takes the lock shared, for the whole of an operation on index.db.
func (l *swapLock) hold() error { return l.move("hold", unlocked, shared, syscall.LOCK_SH) }

// upgrade converts a held shared lock to exclusive, for a swap.
func (l *swapLock) upgrade() error { return l.move("upgrade", shared, exclusive, syscall.LOCK_EX) }

// downgrade converts the exclusive lock back to shared after a swap.
func (l *swapLock) downgrade() error { return l.move("downgrade", exclusive, shared, syscall.LOCK_SH) }

// release ends an operation; releasing what is not held does nothing.
func (l *swapLock) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil && l.state != unlocked {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) // cannot fail on an open descriptor we own
	}
	l.state = unlocked
}

func (l *swapLock) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close() // releases any lock with the descriptor
		l.f = nil
	}
	l.state = unlocked
}

// move is one transition of the protocol.
func (l *swapLock) move(name string, from, to lockState, how int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != from {
		return fmt.Errorf("index lock: %s while %s (want %s)", name, l.state, from)
	}
	if l.f == nil {
		name := filepath.Join(l.home, lockName)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if sqlitedb.WriteErrno(err) != 0 {
			// flock needs no write access: a disk that refuses writes
			// still lets readers order themselves against a swap.
			if rf, rerr := os.Open(name); rerr == nil {
				f, err, l.readOnly = rf, nil, err
			}
		}
		if err != nil {
			return fmt.Errorf("index lock: %w", err)
		}
		l.f = f
	}
	for {
		err := syscall.Flock(int(l.f.Fd()), how)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			// A conversion dropped the old lock before it failed.
			l.state = unlocked
			return fmt.Errorf("index lock: %s: %w", name, err)
		}
		l.state = to
		return nil
	}
}
