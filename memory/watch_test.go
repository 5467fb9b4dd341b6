package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// watchHarness runs Watch on a temporary workspace and hands its batches to
// the test.
type watchHarness struct {
	t       *testing.T
	home    string
	batches chan []string
	cancel  context.CancelFunc
	done    chan error
	once    sync.Once
}

func startWatch(t *testing.T, home string) *watchHarness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchHarness{t: t, home: home, batches: make(chan []string, 100), cancel: cancel, done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		h.done <- Watch(ctx, home, WatchOptions{
			Debounce: 30 * time.Millisecond,
			OnChange: func(paths []string) { h.batches <- paths },
			OnError:  func(err error) { t.Errorf("watch error: %v", err) },
			onReady:  func() { close(ready) },
		})
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("watcher did not start")
	}
	t.Cleanup(h.stop)
	return h
}

// expect waits for a batch holding path, failing after a generous deadline
// (the test is about events arriving, not about how fast). It returns every
// path seen meanwhile.
func (h *watchHarness) expect(path string) []string {
	h.t.Helper()
	var seen []string
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b := <-h.batches:
			seen = append(seen, b...)
			if slices.Contains(b, path) {
				return seen
			}
		case <-deadline:
			h.t.Fatalf("no change reported for %s (saw %v)", path, seen)
		}
	}
}

func (h *watchHarness) stop() {
	h.once.Do(func() {
		h.cancel()
		select {
		case err := <-h.done:
			if err != nil {
				h.t.Errorf("Watch returned %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			h.t.Error("Watch did not stop after cancel")
		}
	})
}

func (h *watchHarness) write(rel, body string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.home, rel), []byte(body), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func TestWatchReportsChanges(t *testing.T) {
	home := t.TempDir() // no logs/ yet: it is created while watching
	h := startWatch(t, home)

	h.write("MEMORY.md", "# Memory\n")
	h.expect("MEMORY.md")

	if err := os.Mkdir(filepath.Join(home, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.expect("logs/")
	h.write("logs/2026-01-01.md", "# 2026-01-01\n")
	h.expect("logs/2026-01-01.md")

	// An editor's save: write a temporary file, rename it over the note.
	h.write("logs/.2026-01-01.md.swp", "# 2026-01-01\n\nedited\n")
	if err := os.Rename(filepath.Join(home, "logs/.2026-01-01.md.swp"), filepath.Join(home, "logs/2026-01-01.md")); err != nil {
		t.Fatal(err)
	}
	if seen := h.expect("logs/2026-01-01.md"); slices.Contains(seen, "logs/.2026-01-01.md.swp") {
		t.Errorf("hidden temp file reported: %v", seen)
	}

	// Subdirectories, and files nobody indexes.
	os.Mkdir(filepath.Join(home, "logs", "2025"), 0o755)
	h.expect("logs/2025/")
	h.write("logs/2025/notes.txt", "not markdown")
	h.write("SOUL.md", "not watched")
	h.write("logs/2025/2025-06-01.md", "# old\n")
	if seen := h.expect("logs/2025/2025-06-01.md"); slices.Contains(seen, "logs/2025/notes.txt") || slices.Contains(seen, "SOUL.md") {
		t.Errorf("unindexed files reported: %v", seen)
	}

	if err := os.Remove(filepath.Join(home, "logs/2026-01-01.md")); err != nil {
		t.Fatal(err)
	}
	h.expect("logs/2026-01-01.md")

	// Several writes in a burst come as one batch.
	for i := range 5 {
		h.write("MEMORY.md", "# Memory\n"+string(rune('a'+i)))
	}
	seen := h.expect("MEMORY.md")
	drain := time.After(200 * time.Millisecond)
	for done := false; !done; {
		select {
		case b := <-h.batches:
			seen = append(seen, b...)
		case <-drain:
			done = true
		}
	}
	if n := countOf(seen, "MEMORY.md"); n > 2 {
		t.Errorf("a burst of 5 writes gave %d batches", n)
	}
}

func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

func TestWatchStopsOnCancel(t *testing.T) {
	h := startWatch(t, t.TempDir())
	h.stop()
	h.write("MEMORY.md", "after stop")
	select {
	case b := <-h.batches:
		t.Errorf("change reported after stop: %v", b)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestWatchMissingHome(t *testing.T) {
	err := Watch(context.Background(), filepath.Join(t.TempDir(), "nope"), WatchOptions{})
	if err == nil {
		t.Fatal("Watch on a missing directory succeeded")
	}
}
