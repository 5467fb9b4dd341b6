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
	return startWatchOpts(t, home, WatchOptions{Debounce: 30 * time.Millisecond})
}

// startWatchOpts is startWatch with the debounce and the onEvent hook of
// opts.
func startWatchOpts(t *testing.T, home string, opts WatchOptions) *watchHarness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchHarness{t: t, home: home, batches: make(chan []string, 100), cancel: cancel, done: make(chan error, 1)}
	ready := make(chan struct{})
	opts.OnChange = func(paths []string) { h.batches <- paths }
	opts.OnError = func(err error) { t.Errorf("watch error: %v", err) }
	opts.onReady = func() { close(ready) }
	go func() {
		h.done <- Watch(ctx, home, opts)
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

}

// TestWatchCoalescesABurst: writes that come closer together than the
// debounce are one batch. Whether they did is measured where it counts, on
// the watcher's goroutine (onEvent, right after each timer restart): a round
// in which a busy machine spread the events over more than half the
// debounce proves nothing either way, and runs again with a debounce twice
// as long. Which batches hold the burst is known by an event, not a wait:
// once the burst is reported, a sentinel note is written, and the batch
// holding it comes after every batch the burst's events can be in.
func TestWatchCoalescesABurst(t *testing.T) {
	for debounce := 30 * time.Millisecond; ; debounce *= 2 {
		if debounce > 8*time.Second {
			t.Fatal("no round ran five writes within half its debounce")
		}
		gap, batches := burstRound(t, debounce)
		if gap >= debounce/2 {
			t.Logf("debounce %v: events up to %v apart, too slow to tell; again with %v", debounce, gap, 2*debounce)
			continue
		}
		if batches != 1 {
			t.Fatalf("debounce %v: a burst of 5 writes, events at most %v apart, came as %d batches", debounce, gap, batches)
		}
		t.Logf("debounce %v: one batch (events at most %v apart)", debounce, gap)
		return
	}
}

// burstRound writes MEMORY.md five times in a row under a watcher with the
// given debounce, and returns the longest gap the watcher saw between two
// of the burst's events and the number of batches that reported MEMORY.md.
func burstRound(t *testing.T, debounce time.Duration) (time.Duration, int) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(home, "MEMORY.md")
	var mu sync.Mutex
	var at []time.Time
	h := startWatchOpts(t, home, WatchOptions{Debounce: debounce, onEvent: func(name string) {
		if name == memory {
			mu.Lock()
			at = append(at, time.Now())
			mu.Unlock()
		}
	}})
	defer h.stop()
	for i := range 5 {
		h.write("MEMORY.md", "# Memory\n"+string(rune('a'+i)))
	}
	seen := h.expect("MEMORY.md")
	h.write("logs/sentinel.md", "# sentinel\n")
	seen = append(seen, h.expect("logs/sentinel.md")...)
	mu.Lock()
	defer mu.Unlock()
	var gap time.Duration
	for i := 1; i < len(at); i++ {
		gap = max(gap, at[i].Sub(at[i-1]))
	}
	return gap, countOf(seen, "MEMORY.md")
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
