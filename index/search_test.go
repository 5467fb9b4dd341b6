package index

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestHeadingWeighsMoreThanBody(t *testing.T) {
	home := workspace(t, map[string]string{
		// The same words, once in a heading and once in the body.
		"logs/2026-01-01.md": "# 2026-01-01\n\n## Sourdough starter\n\nFed it twice today, it smells fine.\n",
		"logs/2026-01-02.md": "# 2026-01-02\n\n## Kitchen\n\nSourdough starter fed twice today, it smells.\n",
	})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	hits := search(t, ix, "sourdough starter", SearchOptions{})
	if got := paths(hits); !reflect.DeepEqual(got, []string{"logs/2026-01-01.md", "logs/2026-01-02.md"}) {
		t.Fatalf("order = %v, want the heading match first", got)
	}
	if hits[0].Score <= hits[1].Score {
		t.Errorf("scores %v, %v not decreasing", hits[0].Score, hits[1].Score)
	}
}

// Equal bm25 (the same note on several days) is broken by date, newest
// first, even when the tie straddles the k-th hit.
func TestRecencyBreaksTies(t *testing.T) {
	files := map[string]string{}
	for _, d := range []string{"2024-03-01", "2026-03-01", "2025-03-01", "2023-03-01", "2022-03-01", "2021-03-01"} {
		files["logs/"+d+".md"] = "# " + d + "\n\n## Standup\n\nDiscussed the flaky integration test.\n"
	}
	files["MEMORY.md"] = "# Memory\n\n## Work\n\nThe integration test suite is flaky on Mondays and needs a retry budget.\n"
	home := workspace(t, files)
	ix, _ := open(t, home)
	reindex(t, ix, false)
	hits := search(t, ix, "flaky integration test", SearchOptions{K: 3})
	want := []string{"logs/2026-03-01.md", "logs/2025-03-01.md", "logs/2024-03-01.md"}
	if got := paths(hits); !reflect.DeepEqual(got, want) {
		t.Fatalf("k=3: %v, want %v", got, want)
	}
	// k=1 asks SQLite for 5 rows, all tied: the query must widen.
	if got := paths(search(t, ix, "flaky integration test", SearchOptions{K: 1})); !reflect.DeepEqual(got, want[:1]) {
		t.Fatalf("k=1: %v", got)
	}
	all := search(t, ix, "flaky integration test", SearchOptions{K: 10})
	if len(all) != 7 || all[6].Path != "MEMORY.md" {
		t.Fatalf("k=10: %v", paths(all))
	}
	for i := 1; i < 6; i++ {
		if all[i].Score != all[0].Score || all[i].Date >= all[i-1].Date {
			t.Errorf("hit %d: score %v date %s after %s", i, all[i].Score, all[i].Date, all[i-1].Date)
		}
	}
}

func TestSearchK(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("logs/2025-01-%02d.md", i+1)] = fmt.Sprintf("# d\n\nwatered the ficus %d times\n", i)
	}
	ix, _ := open(t, workspace(t, files))
	reindex(t, ix, false)
	if n := len(search(t, ix, "ficus", SearchOptions{})); n != DefaultK {
		t.Errorf("default k: %d hits", n)
	}
	if n := len(search(t, ix, "ficus", SearchOptions{K: 25})); n != 25 {
		t.Errorf("k=25: %d hits", n)
	}
	if n := len(search(t, ix, "ficus", SearchOptions{K: 1000})); n != 30 {
		t.Errorf("k=1000: %d hits", n)
	}
	if _, err := ix.Search(context.Background(), "ficus", SearchOptions{K: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("k=-1: %v, want ErrInvalid", err)
	}
}

func TestSearchNoHits(t *testing.T) {
	ix, _ := open(t, workspace(t, map[string]string{"MEMORY.md": memoryMD}))
	reindex(t, ix, false)
	if _, err := ix.Search(context.Background(), "xylophone", SearchOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Search(xylophone) = %v, want ErrNotFound", err)
	}
	// No word at all is the caller's mistake, not an empty result.
	for _, q := range []string{"", "   ", "!!!"} {
		if _, err := ix.Search(context.Background(), q, SearchOptions{}); !errors.Is(err, ErrNoTerms) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Search(%q) = %v, want ErrNoTerms", q, err)
		}
	}
}

func TestSearchRaw(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD, "logs/2026-11-20.md": log1})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	for q, want := range map[string][]string{
		`lisbon AND flight`:       {"logs/2026-11-20.md"},
		`"green tandem"`:          {"MEMORY.md"},
		`heading:groceries`:       {"logs/2026-11-20.md"},
		`hazel*`:                  {"MEMORY.md"},
		`NEAR(oat lemons, 3)`:     {"logs/2026-11-20.md"},
		`lisbon NOT flight`:       nil,
		`{heading}: trip AND 14c`: {"logs/2026-11-20.md"},
	} {
		if got := paths(search(t, ix, q, SearchOptions{Raw: true})); !reflect.DeepEqual(got, want) {
			t.Errorf("raw %s: %v, want %v", q, got, want)
		}
	}
	for _, q := range []string{`"unbalanced`, `AND`, `nosuchcolumn:x`, `(lisbon`, `NEAR(`} {
		_, err := ix.Search(context.Background(), q, SearchOptions{Raw: true})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("raw %s: %v, want ErrInvalid", q, err)
		}
	}
}

func TestSnippetMarksMatches(t *testing.T) {
	long := strings.Repeat("filler words here. ", 40) + "The meeting with Priya moved to Thursday. " + strings.Repeat("more filler. ", 40)
	ix, _ := open(t, workspace(t, map[string]string{"MEMORY.md": "# M\n\n" + long + "\n"}))
	reindex(t, ix, false)
	hits := search(t, ix, "priya thursday", SearchOptions{})
	if len(hits) != 1 {
		t.Fatalf("hits: %v", paths(hits))
	}
	s := hits[0].Snippet
	if !strings.Contains(s, MarkStart+"Priya"+MarkEnd) || !strings.Contains(s, MarkStart+"Thursday"+MarkEnd) || len(s) > 300 {
		t.Errorf("snippet = %q", s)
	}
	if hits[0].Text == s || !strings.Contains(hits[0].Text, "filler words here") {
		t.Errorf("text should be the whole chunk")
	}
}

// A fresh search sees files changed a moment ago, without a reindex.
func TestFreshSearchSeesEdits(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe plumber comes on Friday.\n")
	if got := search(t, ix, "plumber", SearchOptions{}); got != nil {
		t.Fatalf("a search without refresh saw the new file: %v", paths(got))
	}
	if got := paths(search(t, ix, "plumber", SearchOptions{Fresh: true})); !reflect.DeepEqual(got, []string{"logs/2026-12-01.md"}) {
		t.Fatalf("fresh search: %v", got)
	}
	write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe electrician comes on Friday.\n")
	if got := search(t, ix, "plumber", SearchOptions{Fresh: true}); got != nil {
		t.Errorf("stale hit after an edit: %v", paths(got))
	}
}

// NoSnippet returns the same hits, only without snippets.
func TestSearchNoSnippet(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	with := search(t, ix, "bicycle hazelnuts", SearchOptions{})
	without := search(t, ix, "bicycle hazelnuts", SearchOptions{NoSnippet: true})
	if len(with) == 0 || len(with) != len(without) {
		t.Fatalf("hits: %d with snippets, %d without", len(with), len(without))
	}
	for i := range with {
		if with[i].Snippet == "" || without[i].Snippet != "" {
			t.Fatalf("hit %d: snippet %q with, %q without", i, with[i].Snippet, without[i].Snippet)
		}
		with[i].Snippet = ""
		if !reflect.DeepEqual(with[i], without[i]) {
			t.Fatalf("hit %d differs: %+v vs %+v", i, with[i], without[i])
		}
	}
}
