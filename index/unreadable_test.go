package index

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
)

// A file that fails to read is not recorded as seen: every later update
// (refresh, incremental reindex, full rebuild) tries it again, Status counts
// it as unreadable until it reads, and once it reads its notes are found.
// The failure is injected: tests run as root, whom no permission stops.
func TestUnreadableFileIsRetriedUntilItReads(t *testing.T) {
	ctx := context.Background()
	home := workspace(t, map[string]string{
		"MEMORY.md":          memoryMD,
		"logs/2026-11-20.md": "# Trip\n\nThe ferry to Tarifa leaves at nine.\n",
	})
	ageAll(t, home)
	ix, w := open(t, home)
	var failing atomic.Bool
	var attempts atomic.Int32
	failing.Store(true)
	ix.readHook = func(rel string) error {
		if rel != "logs/2026-11-20.md" {
			return nil
		}
		attempts.Add(1)
		if failing.Load() {
			return syscall.EIO
		}
		return nil
	}

	st := reindex(t, ix, false)
	if st.Skipped != 1 || !hasWarning(w.take(), "logs/2026-11-20.md", "cannot read: input/output error") {
		t.Fatalf("first reindex: %+v, want one skipped file warned about", st)
	}
	for _, step := range []struct {
		name string
		run  func() (Stats, error)
	}{
		{"refresh", func() (Stats, error) { return ix.Refresh(ctx) }},
		{"refresh again", func() (Stats, error) { return ix.Refresh(ctx) }},
		{"reindex", func() (Stats, error) { return ix.Reindex(ctx, ReindexOptions{}) }},
		{"full reindex", func() (Stats, error) { return ix.Reindex(ctx, ReindexOptions{Full: true}) }},
	} {
		before := attempts.Load()
		if _, err := step.run(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		w.take()
		if attempts.Load() == before {
			t.Errorf("%s did not try the unreadable file again", step.name)
		}
		s, err := ix.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Unreadable != 1 || s.Problems != 1 {
			t.Errorf("after %s: status %+v, want the file counted as unreadable", step.name, s)
		}
	}
	// A search's refresh is not a reindex: the same error is not repeated.
	ix.Refresh(ctx)
	if got := w.take(); hasWarning(got, "cannot read") {
		t.Errorf("refresh warned again about an unchanged error: %q", got)
	}
	if hits := search(t, ix, "tarifa", SearchOptions{Fresh: true}); len(hits) != 0 {
		t.Fatalf("an unread file was found: %v", paths(hits))
	}

	failing.Store(false)
	if hits := search(t, ix, "tarifa", SearchOptions{Fresh: true}); len(hits) != 1 {
		t.Fatalf("once readable, the file is not found: %v", paths(hits))
	}
	s, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Unreadable != 0 || s.Problems != 0 || s.Files != 2 {
		t.Errorf("once readable: status %+v", s)
	}
	// Read and indexed, the file is trusted again: no more reads.
	before := attempts.Load()
	ix.Refresh(ctx)
	ix.Refresh(ctx)
	if attempts.Load() != before {
		t.Errorf("a file that read is still re-read by every refresh")
	}
}
