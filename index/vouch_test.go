//go:build linux

package index

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// vouch runs Vouch for home with sync until the test ends (or stop is
// called) and waits until it answers.
func vouch(t *testing.T, home string, sync func() error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Vouch(ctx, home, sync) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Vouch: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(5 * time.Second); ; {
		if vouching(home) {
			return stop
		}
		select {
		case err := <-done:
			t.Fatalf("Vouch returned before serving: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Vouch never listened")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// vouching reports whether something accepts connections on home's socket.
func vouching(home string) bool {
	dir, err := unix.Open(home, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(dir)
	c, err := net.Dial("unix", socketPath(home, dir))
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// A vouched-for search does not walk: the proof is a watcher that vouches
// without updating anything, so a change it did not apply stays unseen.
// Once it stops, the search walks and sees the change again.
func TestVouchedSearchSkipsTheWalk(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	// The watcher's word must arrive however busy the machine is (the
	// production bound, askTimeout, is about a stopped watcher, and is
	// tested in TestUnvouchedSearchWalks): here the asker waits for it.
	ix.askTimeout = time.Hour
	var asked atomic.Int32
	stop := vouch(t, home, func() error { asked.Add(1); return nil })

	write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe plumber comes on Friday.\n")
	if got := search(t, ix, "plumber", SearchOptions{Fresh: true}); got != nil {
		t.Fatalf("the search walked despite the watcher's word: %v", paths(got))
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the watcher was asked %d times, want 1", n)
	}
	search(t, ix, "plumber", SearchOptions{}) // not fresh: nobody is asked
	if n := asked.Load(); n != 1 {
		t.Fatalf("a search without refresh asked the watcher (%d)", n)
	}

	stop()
	if _, err := os.Stat(filepath.Join(home, VouchSocket)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	if got := paths(search(t, ix, "plumber", SearchOptions{Fresh: true})); len(got) != 1 || got[0] != "logs/2026-12-01.md" {
		t.Fatalf("with no watcher, the fresh search missed the change: %v", got)
	}
}

// The watcher's sync runs before it answers, so what it applies is what the
// search sees: here sync is a real refresh by a second Index.
func TestVouchingWatcherAppliesChangesFirst(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	watcher, _ := open(t, home)
	vouch(t, home, func() error { _, err := watcher.Refresh(context.Background()); return err })
	write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe plumber comes on Friday.\n")
	if got := paths(search(t, ix, "plumber", SearchOptions{Fresh: true})); len(got) != 1 {
		t.Fatalf("fresh search with a watcher: %v", got)
	}
}

// Whenever the watcher cannot vouch — its sync failed, it answers too late,
// it is not running but left its socket — the search walks.
func TestUnvouchedSearchWalks(t *testing.T) {
	cases := map[string]func(t *testing.T, home string, ix *Index){
		"sync failed": func(t *testing.T, home string, ix *Index) {
			vouch(t, home, func() error { return errors.New("disk on fire") })
		},
		"too slow": func(t *testing.T, home string, ix *Index) {
			ix.askTimeout = 50 * time.Millisecond
			release := make(chan struct{})
			vouch(t, home, func() error { <-release; return nil })
			t.Cleanup(func() { close(release) }) // runs before vouch's stop
		},
		"dead watcher's socket": func(t *testing.T, home string, ix *Index) {
			ln, err := net.Listen("unix", filepath.Join(home, VouchSocket))
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close()
		},
		"not a socket": func(t *testing.T, home string, ix *Index) { write(t, home, VouchSocket, "fresh\n") },
		"wrong answer": func(t *testing.T, home string, ix *Index) {
			ln, err := net.Listen("unix", filepath.Join(home, VouchSocket))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Write([]byte("fresh\nand more\n"))
					c.Close()
				}
			}()
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
			ix, _ := open(t, home)
			reindex(t, ix, false)
			setup(t, home, ix)
			write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe plumber comes on Friday.\n")
			if got := paths(search(t, ix, "plumber", SearchOptions{Fresh: true})); len(got) != 1 {
				t.Fatalf("fresh search: %v", got)
			}
		})
	}
}

// One watcher answers per workspace; a second is told so. A dead watcher's
// socket does not stop the next one.
func TestVouchOnePerWorkspace(t *testing.T) {
	home := workspace(t, nil)
	ln, err := net.Listen("unix", filepath.Join(home, VouchSocket))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // a crashed watcher's leftover
	vouch(t, home, func() error { return nil })
	if !vouched(home, askTimeout) {
		t.Fatal("the watcher does not answer")
	}
	err = Vouch(context.Background(), home, func() error { return nil })
	if !errors.Is(err, ErrVouching) {
		t.Fatalf("second Vouch: %v, want ErrVouching", err)
	}
	if !vouched(home, askTimeout) {
		t.Fatal("the second watcher disturbed the first")
	}
}

// A workspace too deep for a unix socket address still gets its watcher.
func TestVouchLongPath(t *testing.T) {
	home := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if n := len(filepath.Join(home, VouchSocket)); n < 108 {
		t.Fatalf("path only %d bytes: the test needs a longer one", n)
	}
	stop := vouch(t, home, func() error { return nil })
	if !vouched(home, askTimeout) {
		t.Fatal("no answer through the long path")
	}
	stop()
	if _, err := os.Lstat(filepath.Join(home, VouchSocket)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// A watcher that cannot listen (here a directory is in the socket's place)
// says why at once, and searches walk as if there were no watcher.
func TestVouchCannotListen(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	if err := os.Mkdir(filepath.Join(home, VouchSocket), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Vouch(context.Background(), home, func() error { return nil })
	if err == nil || errors.Is(err, ErrVouching) {
		t.Fatalf("Vouch = %v, want a listen error", err)
	}
	ix, _ := open(t, home)
	reindex(t, ix, false)
	write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe plumber comes on Friday.\n")
	if got := paths(search(t, ix, "plumber", SearchOptions{Fresh: true})); len(got) != 1 {
		t.Fatalf("fresh search: %v", got)
	}
}
