package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agent/index"
)

// KeepIndexFresh puts a note written while it runs into the index without
// anyone asking (a search that does not refresh finds it), reports the
// refresh, and stops cleanly on cancel, its vouching socket gone.
func TestKeepIndexFresh(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	wctx, cancel := context.WithCancel(ctx)
	started := make(chan struct{})
	refreshed := make(chan index.Stats, 10)
	done := make(chan error, 1)
	go func() {
		done <- KeepIndexFresh(wctx, home, ix, Report{
			Started:   func(index.Stats, error) { close(started) },
			Refreshed: func(st index.Stats) { refreshed <- st },
			Note:      func(msg string) { t.Logf("note: %s", msg) },
		})
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the watch did not start")
	}
	if err := os.WriteFile(filepath.Join(home, "logs", "2026-11-20.md"), []byte("# 2026-11-20\n\nThe quokka visited.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-refreshed:
		if st.New != 1 {
			t.Errorf("refresh %+v, want one new file", st)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the note was never indexed")
	}
	reader, err := index.Open(ctx, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if hits, err := reader.Search(ctx, "quokka", index.SearchOptions{}); err != nil || len(hits) != 1 {
		t.Fatalf("the index does not hold the note: %v, %v", hits, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("KeepIndexFresh returned %v after cancel", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("KeepIndexFresh did not stop")
	}
	if _, err := os.Stat(filepath.Join(home, ".watch.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the vouching socket is left behind: %v", err)
	}
}
