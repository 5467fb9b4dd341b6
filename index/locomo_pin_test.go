//go:build locomo

// TestLocomoPinned pins the ranking of every LoCoMo dev question (issue 34:
// English must rank exactly as before CJK runs were split into bigrams):
// the first 50 hits of each question, by path, line range and score, are
// compared with testdata/locomo-dev.golden, written by the code before the
// change; so are the recall figures at each budget. Run it with
//
//	go test -tags 'sqlite_fts5 locomo' -count=1 -run TestLocomoPinned ./index
//
// and rewrite the golden file (only for a change meant to rank differently)
// with -update-locomo.
package index

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateLocomo = flag.Bool("update-locomo", false, "rewrite testdata/locomo-dev.golden")

func TestLocomoPinned(t *testing.T) {
	dir := os.Getenv("LOCOMO_DIR")
	if dir == "" {
		dir = "../../shared/bench/data/locomo-dev"
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no LoCoMo data: %v (set LOCOMO_DIR)", err)
	}
	ctx := context.Background()
	budgets := []int{1000, 2000, 4000}
	names := map[int]string{4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain"}
	var got strings.Builder
	var n int
	ok := make([]int, len(budgets))
	convs, _ := filepath.Glob(filepath.Join(dir, "*.qa.json"))
	for _, qaFile := range convs {
		conv := strings.TrimSuffix(qaFile, ".qa.json")
		ws, ix := locomoIndex(ctx, t, conv)
		for _, q := range locomoQuestions(t, ws, qaFile, names) {
			hits, err := ix.Search(ctx, q.Question, SearchOptions{K: 50})
			if err != nil {
				t.Logf("%q: %v", q.Question, err)
			}
			h := sha256.New()
			for _, x := range hits {
				fmt.Fprintf(h, "%s:%d-%d %.9g %s %s\n", x.Path, x.StartLine, x.EndLine, x.Score, x.Query, x.Snippet)
			}
			fmt.Fprintf(&got, "%s %x %s\n", filepath.Base(conv), h.Sum(nil)[:8], q.Question)
			n++
			for i, b := range budgets {
				if hasAll(locomoWithin(hits, b), q.Evidence) {
					ok[i]++
				}
			}
		}
		ix.Close()
	}
	fmt.Fprintf(&got, "recall of %d questions at 1k / 2k / 4k chars: %d / %d / %d\n", n, ok[0], ok[1], ok[2])
	golden := filepath.Join("testdata", "locomo-dev.golden")
	if *updateLocomo {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("LoCoMo dev ranks differently from %s (%d vs %d lines)", golden, len(gl), len(wl))
	}
	t.Logf("recall of %d questions at 1k / 2k / 4k chars: %d / %d / %d", n, ok[0], ok[1], ok[2])
}
