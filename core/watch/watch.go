// Package watch keeps a workspace's index fresh while agent memory watch
// runs, vouching for it to the one-shot commands meanwhile.
package watch

import (
	"context"
	"errors"
	"sync"
	"time"

	"agent/index"
	"agent/memory"
)

// Debounce is how long KeepIndexFresh waits after the last change
// before refreshing: an editor's save is several events (write a temp file,
// rename, chmod), and a burst of them should cost one refresh.
const Debounce = 200 * time.Millisecond

// Report is what KeepIndexFresh tells its caller (the CLI prints it).
type Report struct {
	// Started: the first refresh is done; Stats is the index then, and
	// unsure says why searches must walk the files here, or is nil.
	Started func(st index.Stats, unsure error)
	// Refreshed: a refresh that changed something.
	Refreshed func(index.Stats)
	// Note: something the user should know that does not stop the watch
	// (why searches walk the files here, a failed refresh).
	Note func(string)
	// Gone says, as an error, that home no longer holds a workspace (it
	// was deleted or moved): the watch stops with it. Nil: never asked.
	Gone func() error
}

// KeepIndexFresh keeps home's index current until ctx is done (agent memory
// watch): a monitor on the memory files wakes it, a burst of changes costs
// one incremental refresh, and meanwhile it vouches for the index to
// one-shot searches and chats (index.Vouch), so they need not walk the
// files. One inotify watch serves both: the monitor that wakes the loop is
// the one whose cookie round trip makes a vouch sure.
func KeepIndexFresh(ctx context.Context, home string, ix *index.Index, r Report) error {
	// The monitor starts before the first refresh, so nothing that changes
	// while that refresh runs goes unseen.
	mon, err := memory.NewMonitor(home)
	if err != nil {
		return err
	}
	defer mon.Close()
	mon.Changed() // its first answer is always "changed": the refresh below covers it
	st, err := ix.Refresh(ctx)
	if err != nil {
		return err
	}
	r.Started(st, ix.Vouchable())

	// refresh is shared by the loop and the vouching, one at a time: the
	// monitor says whether anything changed since the last refresh (every
	// event queued before the question counts), and only then are the
	// files walked.
	var mu sync.Mutex
	refresh := func() error {
		mu.Lock()
		defer mu.Unlock()
		if changed, err := mon.Changed(); err == nil && !changed {
			return nil
		}
		st, err := ix.RefreshChanged(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			r.Note("refresh: " + err.Error())
		case err == nil && st.Changes() > 0:
			r.Refreshed(st)
		}
		return err
	}
	vouching := make(chan struct{})
	defer func() { <-vouching }() // the socket is gone before the process is
	vctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		defer close(vouching)
		// Fresh only where inotify sees every change (index/trust.go).
		fresh := func() error {
			if err := refresh(); err != nil {
				return err
			}
			return ix.Vouchable()
		}
		switch err := index.Vouch(vctx, home, fresh); {
		case errors.Is(err, index.ErrVouching):
			r.Note(err.Error() + "; this one reindexes but does not answer searches")
		case err != nil:
			r.Note("searches will check files themselves: " + err.Error())
		}
	}()

	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	// A workspace deleted (its files' removal wakes the loop) or moved away
	// (which may not: hence the ticker) ends the watch: there is nothing
	// left to keep fresh, and a watcher left running would hold a socket
	// and an inotify watch for nothing.
	check := time.NewTicker(GoneCheck)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-mon.Changes():
			quiet.Reset(Debounce) // wait for the burst to end
		case <-quiet.C:
			if err := r.gone(); err != nil {
				return err
			}
			refresh()
		case <-check.C:
			if err := r.gone(); err != nil {
				return err
			}
		}
	}
}

// GoneCheck is how often a watch looks whether its workspace is still
// there when no change has woken it.
const GoneCheck = 30 * time.Second

func (r Report) gone() error {
	if r.Gone == nil {
		return nil
	}
	return r.Gone()
}
