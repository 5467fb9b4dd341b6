package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMultilingualRecall asks the same questions in English, Chinese and
// Japanese of the same help pages written in each language
// (testdata/multilingual: a small parallel corpus written for this test,
// as the Obsidian help vault has no licence to copy it under) and counts
// the questions whose page is among the first 3 hits. Issue 34's target:
// Chinese and Japanese each within one question of English. make bench
// prints the table (go test -v -run TestMultilingualRecall ./index).
func TestMultilingualRecall(t *testing.T) {
	langs := []string{"en", "zh", "ja"}
	pages := map[string]map[string]string{} // lang → slug → page
	for _, l := range langs {
		pages[l] = readCorpus(t, filepath.Join("testdata", "multilingual", l+".md"))
	}
	qs := readQuestions(t, filepath.Join("testdata", "multilingual", "questions.tsv"))
	if len(qs) < 20 {
		t.Fatalf("%d questions, want at least 20", len(qs))
	}
	ctx := context.Background()
	// Each language its own workspace, as each is its own vault; and all
	// three in one, where a Chinese question meets Japanese pages sharing
	// its Han characters.
	type score struct{ top1, top3 int }
	run := func(ws map[string]string, asked ...int) map[string]*score {
		home := workspace(t, ws)
		ix, _ := open(t, home)
		reindex(t, ix, false)
		got := map[string]*score{}
		for _, l := range langs {
			got[l] = &score{}
		}
		for _, q := range qs {
			for _, i := range asked {
				l := langs[i]
				if _, ok := pages[l][q.pages[0]]; !ok {
					t.Fatalf("question %q: no page %s in %s", q.text[i], q.pages[0], l)
				}
				hits, err := ix.Search(ctx, q.text[i], SearchOptions{K: 3, NoSnippet: true})
				if err != nil && !strings.Contains(err.Error(), "no memory matches") {
					t.Fatal(err)
				}
				rank := -1
				for j, h := range hits {
					for _, p := range q.pages {
						if h.Path == pagePath(l, p) {
							rank = j
						}
					}
					if rank >= 0 {
						break
					}
				}
				if rank >= 0 {
					got[l].top3++
					if rank == 0 {
						got[l].top1++
					}
				} else if testing.Verbose() {
					t.Logf("%s miss: %s → %v", l, q.text[i], paths(hits))
				}
			}
		}
		return got
	}
	all := map[string]string{}
	var per []map[string]*score
	for i, l := range langs {
		ws := map[string]string{}
		for slug, body := range pages[l] {
			ws[pagePath(l, slug)] = body
			all[pagePath(l, slug)] = body
		}
		per = append(per, run(ws, i))
	}
	mixed := run(all, 0, 1, 2)
	fmt.Printf("Multilingual recall (index/testdata/multilingual, %d pages per language, %d questions each)\n", len(pages["en"]), len(qs))
	fmt.Printf("| language | top-1, own vault | top-3, own vault | top-3, all three in one vault |\n|---|---|---|---|\n")
	for i, l := range langs {
		s := per[i][l]
		fmt.Printf("| %s | %d | %d | %d |\n", l, s.top1, s.top3, mixed[l].top3)
	}
	en := per[0]["en"].top3
	for i, l := range langs[1:] {
		if got := per[i+1][l].top3; got < en-1 {
			t.Errorf("%s: %d of %d questions in the top 3, English %d: more than one behind", l, got, len(qs), en)
		}
	}
}

func pagePath(lang, slug string) string { return "logs/" + lang + "-" + slug + ".md" }

// readCorpus splits a corpus file into its pages: each starts with a line
// "=== slug".
func readCorpus(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, part := range strings.Split(string(b), "=== ")[1:] {
		slug, body, _ := strings.Cut(part, "\n")
		out[slug] = body
	}
	return out
}

type multilingualQuestion struct {
	pages []string
	text  [3]string // en, zh, ja
}

func readQuestions(t *testing.T, file string) []multilingualQuestion {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []multilingualQuestion
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("%s: %q has %d fields, want 4", file, line, len(f))
		}
		out = append(out, multilingualQuestion{strings.Split(f[0], ","), [3]string{f[1], f[2], f[3]}})
	}
	return out
}
