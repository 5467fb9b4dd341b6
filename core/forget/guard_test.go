package forget_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/core/forget"
	"agent/index"
	"agent/soul"
	"agent/soul/revisions"
)

// A forget rebuilds index.db without the phrase: no chunk matches it
// afterwards and no byte of index.db (its WAL included) holds it, though
// the log it was indexed from held it before.
func TestForgetPurgesTheIndex(t *testing.T) {
	const phrase = "Qv8 heron gate"
	home, db := workspace(t)
	ctx := context.Background()
	write(t, home, "logs/2026-11-20.md", "# 2026-11-20\n\n### 10:00\n\nthe code of the "+phrase+" is kept here\n\n### 11:00\n\nlunch with Ana\n")
	ix, err := index.Open(ctx, home, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	holds := func(text string) bool { return strings.Contains(strings.ToLower(text), strings.ToLower(phrase)) }
	if n, _, err := ix.Matching(ctx, holds); err != nil || n == 0 {
		t.Fatalf("before the forget the index holds %d chunks with the phrase (%v): the test looks in the wrong place", n, err)
	}
	forgetListing(t, home, db, ix, phrase, "index")
	if n, _, err := ix.Matching(ctx, holds); err != nil || n != 0 {
		t.Errorf("after the forget the index holds %d chunks with the phrase (%v)", n, err)
	}
	if held := filesHolding(t, home, "index.db*", "heron gate"); len(held) != 0 {
		t.Errorf("%v hold the phrase after the forget", held)
	}
	if hits, err := ix.Search(ctx, "lunch", index.SearchOptions{}); err != nil || len(hits) == 0 {
		t.Errorf("the rest of the log is no longer found: %v %v", hits, err)
	}
}

// An old version of SOUL.md holding the phrase is a place of the plan, and
// the forget rewrites that revision (its hash following its content); the
// current SOUL.md never held it.
func TestForgetReachesOldRevisions(t *testing.T) {
	const phrase = "Qv8 heron gate"
	home, db := workspace(t)
	ctx := context.Background()
	s := soul.NewStore(db, filepath.Join(home, "SOUL.md"), nil)
	if _, err := s.Save(ctx, "# Soul\n\nI keep the "+phrase+" to myself.\n", soul.User, "a secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "# Soul\n\nI am calm.\n", soul.User, "calmer"); err != nil {
		t.Fatal(err)
	}
	forgetListing(t, home, db, nil, phrase, "revision")
	rows, err := db.QueryContext(ctx, `SELECT id, content, sha256 FROM revisions WHERE kind = 'soul' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := false
	for rows.Next() {
		var id int64
		var content, sum string
		if err := rows.Scan(&id, &content, &sum); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(content), "heron gate") {
			t.Errorf("revision %d still holds the phrase: %q", id, content)
		}
		if sum != revisions.Hash(content) {
			t.Errorf("revision %d: sha256 %s is not its content's", id, sum)
		}
		seen = seen || strings.Contains(content, "I keep the [forgotten] to myself.")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Error("no revision keeps the rest of the old SOUL.md's words")
	}
}

// forgetListing forgets phrase, checking that the plan lists a place of
// the kind given.
func forgetListing(t *testing.T, home string, db *sql.DB, ix forget.Index, phrase, kind string) {
	t.Helper()
	ctx := context.Background()
	p, err := forget.Find(ctx, home, db, ix, phrase)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(p.Places, func(pl forget.Place) bool { return pl.Kind == kind }) {
		t.Errorf("the plan lists no %s place: %+v", kind, p.Places)
	}
	if _, err := p.Apply(ctx, home, db, ix, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// filesHolding lists the workspace files matching pattern (a database and
// its WAL) whose bytes hold word, in any case; it fails when none match.
func filesHolding(t *testing.T, home, pattern, word string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, pattern))
	if len(files) == 0 {
		t.Fatalf("no %s in the workspace", pattern)
	}
	var held []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(b)), word) {
			held = append(held, filepath.Base(f))
		}
	}
	return held
}
