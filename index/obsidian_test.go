//go:build obsidian

// A measurement on data that is not shipped, run by scripts/bench-multilingual.sh
// (go test -tags obsidian) when OBSIDIAN_HELP names a checkout: never a
// skipped test in make test.

package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestObsidianHelpRecall asks testdata/multilingual/obsidian-help-questions.tsv
// of the Obsidian help vault itself, in English, Chinese and Japanese, each
// language's pages as their own workspace, when OBSIDIAN_HELP names a
// checkout of github.com/obsidianmd/obsidian-help (it has no licence file,
// so it is not shipped; make bench runs this when it is given one). It
// reports the questions whose page is in the top 3; issue 34's target is
// Chinese and Japanese each within one question of English.
func TestObsidianHelpRecall(t *testing.T) {
	dir := os.Getenv("OBSIDIAN_HELP")
	if dir == "" {
		t.Fatal("OBSIDIAN_HELP is not set: give it a checkout of obsidianmd/obsidian-help")
	}
	b, err := os.ReadFile(filepath.Join("testdata", "multilingual", "obsidian-help-questions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []multilingualQuestion
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Split(line, "\t"); !strings.HasPrefix(line, "#") && len(f) == 4 {
			qs = append(qs, multilingualQuestion{strings.Split(f[0], ","), [3]string{f[1], f[2], f[3]}})
		}
	}
	ctx := context.Background()
	var top3 [3]int
	for i, l := range []string{"en", "zh", "ja"} {
		ws := map[string]string{}
		permalink := map[string]string{} // workspace path → permalink
		err := filepath.WalkDir(filepath.Join(dir, l), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			body, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(dir, l), p)
			at := "logs/" + strings.ReplaceAll(filepath.ToSlash(rel), "/", "_")
			ws[at] = string(body)
			for _, line := range strings.Split(string(body), "\n") {
				if v, ok := strings.CutPrefix(line, "permalink: "); ok {
					permalink[at] = strings.TrimSpace(v)
					break
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		home := workspace(t, ws)
		ix, _ := open(t, home)
		reindex(t, ix, false)
		for _, q := range qs {
			hits, err := ix.Search(ctx, q.text[i], SearchOptions{K: 3, NoSnippet: true})
			if err != nil && !strings.Contains(err.Error(), "no memory matches") {
				t.Fatal(err)
			}
			found := false
			for _, h := range hits {
				for _, p := range q.pages {
					found = found || permalink[h.Path] == p
				}
			}
			if found {
				top3[i]++
			} else if testing.Verbose() {
				var got []string
				for _, h := range hits {
					got = append(got, permalink[h.Path])
				}
				t.Logf("%s miss: %s (%s) → %v", l, q.text[i], q.pages[0], got)
			}
		}
		ix.Close()
	}
	fmt.Printf("Obsidian help vault (%s): %d questions, top-3 en %d, zh %d, ja %d\n", dir, len(qs), top3[0], top3[1], top3[2])
	// Issue 34's target: Chinese and Japanese each within one question of
	// English (measured en 21, zh 20, ja 20; docs/decisions-cjk.md).
	for i, l := range []string{"zh", "ja"} {
		if top3[i+1] < top3[0]-1 {
			t.Errorf("%s: %d in the top 3, English %d: more than one behind", l, top3[i+1], top3[0])
		}
	}
}
