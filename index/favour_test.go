package index

import (
	"fmt"
	"strings"
	"testing"
)

// kitchen is a diary of twenty dinners in November, two of them cooked at
// home, a fact and a recipe in MEMORY.md, yesterday's and
// today's logs (Saturday 28 November 2026), neither of which says "cook".
func kitchen(t *testing.T) *Index {
	files := map[string]string{
		"MEMORY.md":          "# Memory\n\n## User Facts\n\n- I'm vegetarian: I cook without meat or fish.\n\n## Recipes\n\nLentil curry, what I cook when in a hurry.\n",
		"logs/2026-11-27.md": "# 2026-11-27\n\n### 09:00\n\nFinished reading Piranesi.\n\n### 18:00\n\nBought a new kettle.\n",
		"logs/2026-11-28.md": "# 2026-11-28\n\n### 08:00\n\nBought tomatoes and basil at the market.\n",
	}
	for d := 1; d <= 20; d++ {
		date := fmt.Sprintf("2026-11-%02d", d)
		files["logs/"+date+".md"] = fmt.Sprintf("# %s\n\n### 19:00\n\nDinner out, dish number %d.\n", date, d)
		if d%10 == 0 {
			files["logs/"+date+".md"] = fmt.Sprintf("# %s\n\n### 19:00\n\nCooked dish number %d for dinner.\n", date, d)
		}
	}
	ix, _ := open(t, workspace(t, files))
	return ix
}

// The chat's recall (FavourDays): time words favour their days without
// dropping what the other words find elsewhere. "what should I cook
// tonight" keeps MEMORY.md's fact and recipe and gains today's log,
// which no word matches; "what did I do yesterday", no other word, is
// yesterday's log; "what did I cook on 3 November" has that day's dinner
// ahead of every other day's, and the fact still. Fails when recall keeps
// to the days (the fact and the recipe are gone) and when it has no time
// words (today's log and 3 November are not recalled).
func TestRecallFavoursDaysKeepsFacts(t *testing.T) {
	ix := kitchen(t)
	recall := func(q string) []Hit {
		return search(t, ix, q, SearchOptions{K: 6, Now: saturday, NoCorrect: true, NoSnippet: true, FavourDays: true})
	}
	hits := recall("what should I cook tonight")
	if got := paths(hits); count(got, "MEMORY.md") != 2 || !has(got, "logs/2026-11-28.md") {
		t.Errorf("what should I cook tonight: %v, want MEMORY.md's fact and recipe and today's log", got)
	}
	hits = recall("what did I do yesterday?")
	if got := paths(hits); len(got) != 2 || got[0] != "logs/2026-11-27.md" || got[1] != "logs/2026-11-27.md" {
		t.Errorf("what did I do yesterday: %v, want yesterday's two entries", got)
	}
	hits = recall("what did I cook on 3 November")
	got := paths(hits)
	if !has(got, "MEMORY.md") || !has(got, "logs/2026-11-03.md") {
		t.Fatalf("what did I cook on 3 November: %v, want MEMORY.md and 3 November's log", got)
	}
	for _, h := range hits {
		if h.Path == "logs/2026-11-03.md" {
			if !strings.Contains(h.Text, "number 3.") || h.Query != "when: on 3 November (2026-11-03)" {
				t.Errorf("3 November: %+v", h)
			}
			break
		}
		if h.Date != "" {
			t.Errorf("what did I cook on 3 November: %v, another day's dinner before 3 November's", got)
			break
		}
	}
}

// Search keeps to the days still; FavourDays without time words, or with
// a time nobody wrote about, is the search of the words.
func TestFavourDaysOnlyForRecall(t *testing.T) {
	ix := kitchen(t)
	if got := paths(search(t, ix, "what should I cook tonight", SearchOptions{Now: saturday})); len(got) != 1 || got[0] != "logs/2026-11-28.md" {
		t.Errorf("memory search, cook tonight: %v, want today's log alone", got)
	}
	for _, q := range []string{"what should I cook", "what did I cook in March"} {
		plain := paths(search(t, ix, "what should I cook", SearchOptions{K: 6}))
		favoured := paths(search(t, ix, q, SearchOptions{K: 6, Now: saturday, FavourDays: true}))
		if strings.Join(plain, " ") != strings.Join(favoured, " ") {
			t.Errorf("%q: %v, want the words' own %v", q, favoured, plain)
		}
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
