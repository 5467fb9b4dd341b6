package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// A full rebuild replaces index.db by rename while other handles (a watcher,
// searches) have the old file open. None of them may write into the orphaned
// file, nor treat the new file's journal as their own hot journal: the
// long-lived updater (what `agent memory watch` is) keeps every change it was
// told of, nobody fails, and the result equals a fresh rebuild. Before the
// swap lock, this failed within a few hundred rounds with "disk I/O error"
// or with the watcher's changes lost in the orphan.
func TestSwapUnderConcurrentUpdatesAndReads(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	watcher, _ := open(t, home)
	reindex(t, watcher, true)
	rebuilder, _ := open(t, home)
	reader, _ := open(t, home)

	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	loop := func(name string, step func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := step(i); err != nil {
					errs <- fmt.Errorf("%s, round %d: %w", name, i, err)
					return
				}
			}
		}()
	}
	loop("rebuilder", func(int) error {
		_, err := rebuilder.Reindex(ctx, ReindexOptions{Full: true})
		return err
	})
	loop("reader", func(int) error {
		_, err := reader.Search(ctx, "quokka", SearchOptions{K: 3})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	loop("opener", func(int) error { // a new process: open, search, close
		ix, err := Open(ctx, home, nil)
		if err != nil {
			return err
		}
		defer ix.Close()
		_, err = ix.Search(ctx, "quokka", SearchOptions{K: 1})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	// The watcher is told of each file it writes, as inotify would tell it.
	const rounds = 300
	var werr error
	for i := 0; i < rounds && werr == nil; i++ {
		write(t, home, fmt.Sprintf("logs/2026-01-%02d.md", i%28+1), fmt.Sprintf("# day\n\nquokka note %d\n", i))
		_, werr = watcher.RefreshChanged(ctx)
	}
	close(stop)
	wg.Wait()
	close(errs)
	if werr != nil {
		t.Fatalf("watcher: %v", werr)
	}
	for err := range errs {
		t.Fatal(err)
	}
	// index.db, as the next process opens it with no refresh, holds what
	// the files hold: no change the watcher applied was lost.
	fresh, _ := open(t, home)
	if err := fresh.current(ctx); err != nil {
		t.Fatal(err)
	}
	got := allHits(t, fresh)
	reindex(t, rebuilder, true)
	want := allHits(t, rebuilder)
	if !slices.Equal(got, want) {
		missing := 0
		for _, w := range want {
			if !slices.Contains(got, w) {
				missing++
			}
		}
		t.Fatalf("index.db differs from a rebuild: %d chunks vs %d, %d of the rebuild's missing (changes lost)", len(got), len(want), missing)
	}
}
