package core

import (
	"context"

	"agent/index"
)

// Search is `memory search`'s query (snippets, the caller's options) on the
// chat's own index, under the lock a recall takes, so the REPL's /search
// shows what `agent memory search` shows without opening the index twice.
func (r *IndexRecall) Search(ctx context.Context, query string, opts index.SearchOptions) ([]index.Hit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ix.Search(ctx, query, opts)
}
