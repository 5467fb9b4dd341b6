package core

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"agent/index"
	"agent/memory"
)

// wroteEmbedLimit is how many new chunks a REPL embeds after a turn, and
// wroteEmbedTimeout how long it may take: the next recall waits for it.
const (
	wroteEmbedLimit   = 4
	wroteEmbedTimeout = 5 * time.Second
)

// IndexRecall is the Recaller backed by the workspace's FTS5 index.
type IndexRecall struct {
	mu sync.Mutex // one user of ix at a time: a recall or a background refresh
	// refreshing counts the background refreshes Wrote started: a recall
	// or Close waits for them, so it sees what the turn wrote.
	refreshing sync.WaitGroup
	ix         *index.Index
	monitor    *memory.Monitor
	// now is the time in the user's zone, by which a message's time words
	// ("yesterday", "last week") name days; unset is time.Now, local
	// time. Not under mu: setting it must not wait for a recall.
	now atomic.Pointer[func() time.Time]
}

var _ Recaller = (*IndexRecall)(nil)

// OpenIndexRecall opens (creating if needed) the index of home. warn receives
// the index's notes about files it skipped or a rebuild it had to do.
func OpenIndexRecall(ctx context.Context, home string, warn func(string)) (*IndexRecall, error) {
	ix, err := index.Open(ctx, home, warn)
	if err != nil {
		return nil, err
	}
	return &IndexRecall{ix: ix}, nil
}

// OpenRecall opens the index for a chat. Given the one message a one-shot
// chat or a prompt will send, its recall starts at once (RecallAhead), while
// the rest is opened. An index that cannot be opened is an error the chat
// goes on without: mem and recaller are nil then. e, when not nil, adds the
// embedding model's sense of meaning to every recall (index.Embedder); a
// turn only waits for its own message's embedding, never for text not
// embedded yet (that is recalled by its words).
// now, when not nil, is the time in the user's zone (SetNow).
func OpenRecall(ctx context.Context, home, message string, now func() time.Time, e index.Embedder, warn func(string)) (mem *IndexRecall, recaller Recaller, err error) {
	mem, err = OpenIndexRecall(ctx, home, warn)
	if err != nil {
		return nil, nil, err
	}
	if now != nil {
		mem.now.Store(&now)
	}
	if e != nil {
		mem.ix.SetEmbedder(e)
	}
	if strings.TrimSpace(message) != "" {
		return mem, RecallAhead(ctx, mem, message, DefaultRecallK), nil
	}
	return mem, mem, nil
}

// Recall searches with a fresh view of the files (changed files are
// reindexed first). Nothing to search for, or no match, is no hits.
func (r *IndexRecall) Recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	r.refreshing.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	// No typo correction: a name the memory does not hold yet would turn
	// into one it does. Time words favour their days and do not keep to
	// them: keeping to them would leave out every undated passage
	// (MEMORY.md's facts) of a message such as "what should I cook
	// tonight" (docs/decisions-index.md, "Time words").
	now := time.Now
	if f := r.now.Load(); f != nil {
		now = *f
	}
	hits, err := r.ix.Search(ctx, text, index.SearchOptions{K: k, Fresh: true, NoSnippet: true, NoCorrect: true, Now: now(), FavourDays: true})
	if errors.Is(err, index.ErrNotFound) || errors.Is(err, index.ErrNoTerms) {
		return nil, nil // nothing to recall is not a failure
	}
	if err != nil {
		return nil, err
	}
	out := make([]Recalled, len(hits))
	for i, h := range hits {
		out[i] = Recalled{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Heading: h.Heading, Date: h.Date, Text: h.Text, By: h.By, Query: h.Query}
	}
	return out, nil
}

// SetNow makes a recall read the time words of a message ("yesterday",
// "last week") as of now(), which is the time in the user's zone (the
// zone the daily logs are named in); until then they are read in local
// time.
func (r *IndexRecall) SetNow(now func() time.Time) { r.now.Store(&now) }

// WatchFiles lets a long-lived process (the REPL) skip the stat walk before
// each recall: an inotify monitor says whether anything changed. Without it
// every recall walks the files, which is right for a one-shot process.
func (r *IndexRecall) WatchFiles(home string) error {
	m, err := memory.NewMonitor(home)
	if err != nil {
		return err
	}
	r.monitor = m
	r.ix.SetMonitor(m)
	return nil
}

// Wrote tells the index that this process just wrote to the memory files (a
// logged turn, a tool). With a monitor, the index is brought up to date in
// the background, after the reply has been shown, so the next turn's recall
// need not walk the files: the monitor is drained first, then the files are
// walked, and anything written after the drain raises a new event. Without
// a monitor there is nothing to do: the next recall walks anyway.
func (r *IndexRecall) Wrote() {
	if r.monitor == nil {
		return
	}
	r.refreshing.Add(1)
	go func() {
		defer r.refreshing.Done()
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, err := r.monitor.Changed(); err != nil {
			return
		}
		st, err := r.ix.RefreshChanged(context.Background())
		if err != nil || st.Changes() == 0 {
			return // a failure is met again by the next recall; no change, nothing to embed
		}
		// What the turn wrote gets its vectors now, a few chunks at most,
		// so the next recall never waits for a backlog (agent memory
		// watch or reindex embeds the rest). Failing is the next
		// recall's notice to give; a wedged server is given up on.
		ctx, cancel := context.WithTimeout(context.Background(), wroteEmbedTimeout)
		defer cancel()
		r.ix.Embed(ctx, index.EmbedOptions{Limit: wroteEmbedLimit})
	}()
}

// Close releases the index and the monitor, after any background refresh.
func (r *IndexRecall) Close() error {
	r.refreshing.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.monitor != nil {
		r.monitor.Close()
	}
	return r.ix.Close()
}

// RecallAhead starts the recall for message at once and returns a Recaller
// that hands its result to the first Recall for that same message and k;
// anything else goes to r. A one-shot chat knows its only message before it
// has opened state.db, asked Ollama for the model or created the session,
// and the index query — most of a turn's own time — runs meanwhile on the
// other core. The result is the one a later Recall would have returned
// unless the memory files change in between, which in a one-shot chat only
// the turn itself does, after its recall.
func RecallAhead(ctx context.Context, r Recaller, message string, k int) Recaller {
	a := &aheadRecall{Recaller: r, message: message, k: k, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.hits, a.err = r.Recall(ctx, message, k)
	}()
	return a
}

type aheadRecall struct {
	Recaller
	message string
	k       int
	done    chan struct{}
	hits    []Recalled
	err     error
	taken   atomic.Bool
}

func (a *aheadRecall) Recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	if text != a.message || k != a.k || !a.taken.CompareAndSwap(false, true) {
		return a.Recaller.Recall(ctx, text, k)
	}
	select {
	case <-a.done:
		return a.hits, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
