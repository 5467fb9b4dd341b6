package index

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"agent/index/sqlitedb"
)

// DefaultK is how many hits Search returns when SearchOptions.K is 0.
const DefaultK = 10

// Snippet highlight markers: Hit.Snippet wraps each matched term in them, for
// the caller to render (bold on a terminal) or strip.
const (
	MarkStart = "\x02"
	MarkEnd   = "\x03"
)

// SearchOptions tunes Search.
type SearchOptions struct {
	K   int  // at most this many hits; 0 means DefaultK
	Raw bool // the query is FTS5 syntax, passed through unchanged
	// Fresh makes the search see the files as they are now: a running
	// watcher vouches for the index, or else a Refresh's stat walk runs
	// alongside the query, and if it finds a change the index is updated
	// and the query run again.
	Fresh bool
	// NoSnippet leaves Hit.Snippet empty, for a caller that uses Text.
	NoSnippet bool
	// NoCorrect searches the words as given: no word without a hit is
	// replaced by a near one of the vocabulary. For recall, where a new
	// name the memory does not hold yet must not become another.
	NoCorrect bool
	// Now, when set, lets the query's time words ("yesterday", "last
	// week", "in October", "2026-11-23": timewords.Find) keep the search
	// to the chunks of those days, resolved in Now's zone (the user's);
	// the time words need not match. Zero leaves them ordinary words.
	Now time.Time
	// FavourDays, with Now, makes the time words favour the chunks of
	// their days rather than keep the search to them (the chat's recall):
	// the days' best chunks take up to half of the K places, ahead of
	// the chunks of other days, and the other words' matches elsewhere
	// (MEMORY.md's facts among them) keep the rest (favour.go).
	FavourDays bool
	// Since and Until ("2006-01-02", inclusive; "" for open) keep the
	// search to the chunks dated within them (daily logs, dated notes).
	Since, Until string
}

// Hit is one chunk that matched, with its exact source.
type Hit struct {
	Path      string // workspace-relative
	StartLine int    // 1-based, inclusive
	EndLine   int
	Heading   string
	Date      string  // "" outside the daily logs
	By        string  // "assistant" for the assistant's words (a logged turn's reply), "" for the user's
	Score     float64 // relevance, higher is better (fused; comparable within one search)
	Snippet   string  // a few words around the matches, marked with MarkStart/MarkEnd
	Text      string  // the whole chunk
	// Query names the sub-query that gave the hit most of its score
	// (buildPlan's labels: "lisbon flight", "all: …", "forms: …", "when: …",
	// or a raw query as typed), for a caller to show why it was recalled.
	Query string
	// Corrected are the query's words that matched nothing and the words
	// of the index searched in their place (typo.go); nil for none.
	Corrected []Correction
}

// ChangeMonitor tells whether the memory files may have changed since it was
// last asked (memory.Monitor, in a long-lived process such as the REPL). An
// Index without one asks a running `agent memory watch` (see Vouch).
type ChangeMonitor interface {
	Changed() (bool, error)
}

// SetMonitor makes fresh searches ask m before walking the files. The first
// answer of a new monitor must be "changed".
func (ix *Index) SetMonitor(m ChangeMonitor) { ix.monitor = m }

// Search returns the best chunks for query, best first: the fused ranking of
// buildPlan's sub-queries (rankPlan), each bm25 with headings weighted above
// body text, the more recent chunk first among equals. Chat's recall and the
// CLI both come here, so they rank alike. A query with nothing to search for
// fails with ErrNoTerms (a usage error), one with no match with an error
// wrapping ErrNotFound; a malformed Raw query with ErrInvalid.
func (ix *Index) Search(ctx context.Context, query string, opts SearchOptions) ([]Hit, error) {
	k := opts.K
	switch {
	case k == 0:
		k = DefaultK
	case k < 0:
		return nil, fmt.Errorf("%w k %d: must be at least 1", ErrInvalid, k)
	}
	p := searchPlan(query, opts)
	if len(p.subs) == 0 && p.days == nil {
		return nil, fmt.Errorf("%w: %q has no word to search for: a query needs letters or digits", ErrNoTerms, query)
	}
	if d := ix.startDense(ctx, query, opts.Raw); d != nil {
		p.dense = sync.OnceValues(d) // a query run twice (freshQuery) waits once
		p.memo = &denseMemo{}
	}
	// A watcher's word is asked for before looking at index.db, for
	// answering may have meant rebuilding it.
	fresh := opts.Fresh && !(ix.monitor == nil && vouched(ix.home, ix.askTimeout))
	release, err := ix.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if ix.lock.readOnly != nil && ix.full.needed() {
		return nil, fmt.Errorf("%s, and it cannot be rebuilt: %w", ix.full.why, ix.lock.readOnly)
	}
	var hits []Hit
	if fresh && !ix.full.needed() {
		hits, err = ix.freshQuery(ctx, p, k, opts)
	} else {
		if ix.full.needed() {
			if _, err := ix.update(ctx, false, nil, false); err != nil {
				return nil, err
			}
		}
		hits, err = ix.query(ctx, p, k, opts)
	}
	if isCorrupt(err) {
		ix.markCorrupt(err)
		if _, err := ix.update(ctx, false, nil, false); err != nil {
			return nil, err
		}
		hits, err = ix.query(ctx, p, k, opts)
	}
	if err != nil {
		return nil, err
	}
	hits = dropCitedTwice(hits)
	if len(hits) == 0 {
		return nil, fmt.Errorf("%w: no memory matches %q", ErrNotFound, query)
	}
	return hits, nil
}

// freshQuery checks the files before querying: quickDigest, the stat walk
// with nothing kept, usually shows nothing changed. When it cannot tell, the
// full walk runs alongside the query, and the search costs the longer of the
// two rather than their sum.
func (ix *Index) freshQuery(ctx context.Context, p plan, k int, opts SearchOptions) ([]Hit, error) {
	if ix.monitor != nil {
		// A monitor that saw nothing change spares the walk; when it is
		// unsure it says "changed" and the walk runs as usual.
		if changed, err := ix.monitor.Changed(); err == nil && !changed {
			return ix.query(ctx, p, k, opts)
		}
	}
	m, err := ix.meta(ctx)
	if err != nil {
		return nil, err
	}
	p.memo.know(m) // the update below does not change it
	// After a monitor's "changed" the quick check would almost always
	// fail too: the walk runs straight away.
	if ix.monitor == nil {
		if sum, _, ok := quickDigest(ix.home); ok && bytes.Equal(m.digest, sum.bytes()) {
			return ix.query(ctx, p, k, opts)
		}
	}
	type walked struct {
		ents []entry
		sum  digest
		err  error
	}
	ch := make(chan walked, 1)
	if ix.walkHook != nil {
		ix.walkHook()
	}
	go func() {
		ents, sum, err := walk(ix.home)
		ch <- walked{ents, sum, err}
	}()
	hits, qerr := ix.query(ctx, p, k, opts)
	w := <-ch
	if w.err != nil {
		return nil, fmt.Errorf("refresh %s: %w", ix.home, w.err)
	}
	if bytes.Equal(m.digest, w.sum.bytes()) {
		return hits, qerr
	}
	if _, err := ix.incremental(ctx, w.ents, w.sum, nil); err != nil {
		if sqlitedb.WriteErrno(err) != 0 {
			// A full or read-only disk: what the index holds is still
			// worth showing (the update rolled back whole).
			ix.cannotRefresh(err)
			return hits, qerr
		}
		return nil, err
	}
	return ix.query(ctx, p, k, opts)
}

// cannotRefresh tells the user, once per Index, that a search shows what
// the index held because the disk refused the refresh.
func (ix *Index) cannotRefresh(err error) {
	if ix.refreshRefused {
		return
	}
	ix.refreshRefused = true
	ix.warn(fmt.Sprintf("the index could not be refreshed (%v): searching what it holds; notes changed since the last reindex may be missed", sqlitedb.WriteErrno(err)))
}

// query runs the two-step search: rank ids (rankPlan), then read text, path
// and snippet for the few kept.
func (ix *Index) query(ctx context.Context, p plan, k int, opts SearchOptions) ([]Hit, error) {
	p, err := ix.daysPlan(ctx, p)
	if err != nil {
		return nil, err
	}
	if len(p.subs) == 0 && p.days == nil { // the time words were all, and no chunk is of their days
		return nil, nil
	}
	var fixes []Correction
	if !opts.NoCorrect {
		if fixes, err = ix.corrections(ctx, p); err != nil {
			return nil, err
		}
		if len(fixes) > 0 {
			p = corrected(p, fixes)
		}
	}
	cs, err := ix.rank(ctx, p, k, opts.FavourDays)
	if err != nil {
		return nil, searchError(p.match(), p.raw, err)
	}
	snip := p.snippet
	if opts.NoSnippet {
		snip = ""
	}
	hits, err := ix.fetch(ctx, cs, p, snip)
	if err != nil {
		return nil, searchError(p.match(), p.raw, err)
	}
	for i := range hits {
		hits[i].Corrected = fixes
		if !opts.NoSnippet && hits[i].Snippet == "" {
			hits[i].Snippet = lead(hits[i].Text) // found by its date: no word of the query in it
		}
	}
	return hits, nil
}

// searchError makes an FTS5 syntax error in an expert's raw query a usage
// error; in a query BuildQuery made it would be a bug, reported as is.
func searchError(match string, raw bool, err error) error {
	if raw && sqlitedb.IsSQLError(err) {
		return fmt.Errorf("%w FTS5 query %q: %v", ErrInvalid, match, err)
	}
	return fmt.Errorf("search %q: %w", match, err)
}
