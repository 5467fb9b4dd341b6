//go:build linux

package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A fresh search must not answer from an index older than the files. On its
// own a one-shot process learns that by a stat walk, one stat per file: tens
// of milliseconds for 10,000 notes, most of a search. A running `agent
// memory watch` already knows, so it vouches: it listens on a unix socket in
// the workspace, and to each question it first makes sure it has seen every
// file event queued before the question (memory.Monitor's cookie), applies
// whatever changed to the index, and only then answers "fresh". Anything else
// — no socket, a refused connection, an answer that is late or not "fresh" —
// and the asker walks the files as it would with no watcher: the watcher can
// make a search faster, never staler. There is still no daemon: nothing
// starts a watcher but the user.
const (
	vouchLock = ".watch.lock"
	question  = "fresh?\n"
	answer    = "fresh\n"
	unsure    = "unsure\n"
)

// ErrVouching means another watcher already answers for the workspace.
var ErrVouching = errors.New("another 'agent memory watch' is already keeping this index fresh")

// Vouch answers freshness questions about home's index until ctx is done.
// fresh must bring the index up to date with every change made to the files
// before it was called; "fresh" is answered only when it returns nil. It
// may be called from several goroutines at once. Vouch returns ErrVouching at
// once when another process vouches for the workspace.
func Vouch(ctx context.Context, home string, fresh func() error) error {
	lock, err := os.OpenFile(filepath.Join(home, vouchLock), os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("vouch for %s: %w", home, err)
	}
	defer lock.Close() // releases the lock
	// A one-shot try on a Linux-only path (unix sockets, /proc): the plain
	// syscall says it in one line where gofrs/flock would add nothing.
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return ErrVouching
		}
		return fmt.Errorf("vouch for %s: %w", home, err)
	}
	// The socket is named through a handle on the directory, held while it
	// lives, so it is removed from the right place even when its path goes
	// through the handle (see socketPath).
	dir, err := unix.Open(home, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("vouch for %s: %w", home, err)
	}
	defer unix.Close(dir)
	// Holding the lock, any socket left here is a dead watcher's.
	unix.Unlinkat(dir, VouchSocket, 0)
	ln, err := net.Listen("unix", socketPath(home, dir))
	if err != nil {
		return fmt.Errorf("vouch for %s: %w", home, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	// The socket goes before the lock is released (deferred first), so a
	// new watcher never finds a live socket it did not create.
	defer unix.Unlinkat(dir, VouchSocket, 0)
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer ln.Close()
	// Questions being answered finish before Vouch returns: the caller may
	// close what fresh uses as soon as it does.
	var answering sync.WaitGroup
	defer answering.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("vouch for %s: %w", home, err)
		}
		answering.Go(func() { serveQuestion(conn, fresh) })
	}
}

func serveQuestion(conn net.Conn, fresh func() error) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	buf := make([]byte, len(question))
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != question {
		return
	}
	reply := unsure
	if fresh() == nil {
		reply = answer
	}
	conn.Write([]byte(reply))
}

// vouched reports whether a watcher answers that home's index is fresh
// within wait. It
// uses raw syscalls rather than package net: when no watcher runs, which is
// the common case, the question costs a few syscalls (a socket, a failed
// connect), and a one-shot process does not start net's poller for it.
func vouched(home string, wait time.Duration) bool {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	dir, err := unix.Open(home, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: socketPath(home, dir)})
	unix.Close(dir)
	if err != nil {
		return false
	}
	tv := unix.NsecToTimeval(wait.Nanoseconds())
	if unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv) != nil ||
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv) != nil {
		return false
	}
	if n, err := unix.Write(fd, []byte(question)); err != nil || n != len(question) {
		return false
	}
	buf := make([]byte, len(answer)+1)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break // a timeout, or the watcher closed the connection after its answer
		}
		n += m
	}
	return string(buf[:n]) == answer
}

// socketPath is the socket's path in home, dir being an open handle on
// home. A unix socket's address holds at most 107 bytes; for a workspace
// deeper than that the path goes through the handle
// (/proc/self/fd/N/.watch.sock), which names the same file.
func socketPath(home string, dir int) string {
	path := filepath.Join(home, VouchSocket)
	if len(path) < 108 {
		return path
	}
	return "/proc/self/fd/" + strconv.Itoa(dir) + "/" + VouchSocket
}
