package index

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// Status describes the index without changing it.
type Status struct {
	Files    int   // files indexed
	Chunks   int   // chunks indexed
	Bytes    int64 // bytes of the indexed files
	Problems int   // files seen but not indexed (binary, too big, unreadable, ...)
	// Unreadable counts the problems that are I/O errors (cannot stat, list
	// or read): retried by every update, reported by doctor until they read.
	Unreadable  int
	LastReindex time.Time // zero when the index has never been built
	// Changed counts files new, modified or deleted since the last update:
	// what the next refresh would read.
	Changed int
	// Rebuild is why the next update must rebuild from scratch (index.db
	// missing, corrupt, of another version), "" when it is usable.
	Rebuild string
}

// Status reports what the index holds and how far the files have moved on.
func (ix *Index) Status(ctx context.Context) (Status, error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return Status{}, err
	}
	defer release()
	ents, sum, err := walk(ix.home)
	if err != nil {
		return Status{}, fmt.Errorf("status %s: %w", ix.home, err)
	}
	if ix.full.needed() {
		return Status{Rebuild: ix.full.why, Changed: len(ents)}, nil
	}
	st, m, err := ix.held(ctx)
	if err != nil {
		return Status{}, err
	}
	if err := ix.db.QueryRowContext(ctx, sqlCountProblems).Scan(&st.Problems, &st.Unreadable); err != nil {
		return Status{}, fmt.Errorf("status %s: %w", ix.path, err)
	}
	if bytes.Equal(m.digest, sum.bytes()) {
		return st, nil
	}
	old, err := loadManifest(ctx, ix.db)
	if err != nil {
		return Status{}, fmt.Errorf("status %s: %w", ix.path, err)
	}
	seen := map[string]bool{}
	for _, e := range ents {
		seen[e.rel] = true
		if !old[e.rel].statMatches(&e) {
			st.Changed++
		}
	}
	gone := inGoneSource(ents)
	for rel := range old {
		if !seen[rel] && !gone(rel) {
			st.Changed++
		}
	}
	return st, nil
}

// Summary is what the index holds as of its last update, without looking at
// the files: for the chat's runtime section, which must not cost a walk.
// An index that has to be rebuilt reports zeros.
func (ix *Index) Summary(ctx context.Context) (Status, error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return Status{}, err
	}
	defer release()
	if ix.full.needed() {
		return Status{Rebuild: ix.full.why}, nil
	}
	st, _, err := ix.held(ctx)
	return st, err
}

// held reads what the index holds from its meta table.
func (ix *Index) held(ctx context.Context) (Status, metaFacts, error) {
	m, err := ix.meta(ctx)
	if err != nil {
		return Status{}, m, err
	}
	st := Status{Files: m.files, Chunks: m.chunks, Bytes: m.bytes}
	if m.lastReindex.UnixNano() > 0 {
		st.LastReindex = m.lastReindex
	}
	return st, m, nil
}
