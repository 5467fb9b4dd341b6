package core

import (
	"context"
	"errors"
	"time"

	"agent/index"
)

// IndexRecall is the Recaller backed by the workspace's FTS5 index.
type IndexRecall struct{ ix *index.Index }

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

// Recall searches with a fresh view of the files (changed files are
// reindexed first). Nothing to search for, or no match, is no hits.
func (r *IndexRecall) Recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	hits, err := r.ix.Search(ctx, text, index.SearchOptions{K: k, Fresh: true})
	if errors.Is(err, index.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Recalled, len(hits))
	for i, h := range hits {
		out[i] = Recalled{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Heading: h.Heading, Date: h.Date, Text: h.Text}
	}
	return out, nil
}

// Stats reports the index's size and age for the runtime section.
func (r *IndexRecall) Stats(ctx context.Context) (files, chunks int, lastIndexed time.Time, err error) {
	st, err := r.ix.Status(ctx)
	return st.Files, st.Chunks, st.LastReindex, err
}

// Close releases the index.
func (r *IndexRecall) Close() error { return r.ix.Close() }
