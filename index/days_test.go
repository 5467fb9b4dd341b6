package index

import (
	"testing"
	"time"
)

// diary is a week of dated logs, with "today" (Saturday 28 November 2026)
// holding a chat turn that talks about an earlier day.
func diary(t *testing.T) *Index {
	home := workspace(t, map[string]string{
		"logs/2026-11-02.md": "# 2026-11-02\n\n### 20:00\n\nDinner at Casa Oliveira with Rui, grilled fish.\n",
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 19:30\n\nDinner at the Thai place on Rua Augusta with Ana.\n",
		"logs/2026-11-23.md": "# 2026-11-23\n\n### 08:10\n\nSwam 1 km before work.\n\n### 17:40\n\nCalled the plumber about the boiler.\n",
		"logs/2026-11-27.md": "# 2026-11-27\n\n### 09:00\n\nFinished reading Piranesi.\n\n### 18:00\n\nBought a new kettle.\n",
		"logs/2026-11-28.md": turnLog("2026-11-28", "08:00", "what happened on 2026-11-23? I had dinner plans",
			"On 2026-11-23 you had dinner plans, I think."),
	})
	ix, _ := open(t, home)
	return ix
}

var saturday = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

// Time words select the entries of their days, even when no other word
// matches, and need not match themselves (issue 46).
func TestTimeWordsSelectTheirDays(t *testing.T) {
	ix := diary(t)
	for _, tc := range []struct {
		query string
		want  []string // the first hits' paths, in order
	}{
		{"what did I do yesterday?", []string{"logs/2026-11-27.md", "logs/2026-11-27.md"}},
		{"2026-11-23", []string{"logs/2026-11-23.md", "logs/2026-11-23.md"}},
		{"where did I have dinner last week", []string{"logs/2026-11-18.md"}},
	} {
		hits := search(t, ix, tc.query, SearchOptions{Now: saturday})
		got := paths(hits)
		if len(got) < len(tc.want) {
			t.Errorf("%q: hits %v, want %v first", tc.query, got, tc.want)
			continue
		}
		for i, w := range tc.want {
			if got[i] != w {
				t.Errorf("%q: hits %v, want %v first", tc.query, got, tc.want)
				break
			}
		}
		for _, h := range hits {
			if h.Date < "2026-11-01" {
				t.Errorf("%q: a hit of another time: %s", tc.query, h.Path)
			}
		}
	}
	// Yesterday's entries, in the order written, and nothing else.
	hits := search(t, ix, "what did I do yesterday?", SearchOptions{Now: saturday})
	if len(hits) != 2 || hits[0].StartLine > hits[1].StartLine || hits[0].Query != "when: yesterday (2026-11-27)" {
		t.Errorf("yesterday: %+v", hits)
	}
}

// A time with nothing written in it gives way to the words as typed; without
// Now the time words are ordinary words.
func TestTimeWordsWithoutEntriesAreWords(t *testing.T) {
	ix := diary(t)
	if hits := search(t, ix, "dinner in March", SearchOptions{Now: saturday}); len(hits) == 0 {
		t.Error("dinner in March: no hits; want the dinners, the month having no entry")
	}
	if hits := search(t, ix, "yesterday", SearchOptions{}); len(hits) != 0 {
		t.Errorf("yesterday without Now: %v, want no hit (no note says yesterday)", paths(hits))
	}
}

// --since/--until keep a search to their days, strictly.
func TestSinceUntil(t *testing.T) {
	ix := diary(t)
	hits := search(t, ix, "dinner", SearchOptions{Since: "2026-11-10", Until: "2026-11-20"})
	if got := paths(hits); len(got) != 1 || got[0] != "logs/2026-11-18.md" {
		t.Errorf("dinner since 10 until 20 November: %v", got)
	}
	hits = search(t, ix, "dinner", SearchOptions{Since: "2026-11-25"})
	if len(hits) != 2 || hits[0].Path != "logs/2026-11-28.md" || hits[1].Path != "logs/2026-11-28.md" {
		t.Errorf("dinner since 25 November: %v, want only today's chat turn", paths(hits))
	}
}

// German, French and Spanish time words select their days as English ones
// do (index/timewords/lang.go).
func TestTimeWordsOtherLanguages(t *testing.T) {
	ix := diary(t)
	for _, q := range []string{"Was habe ich gestern gemacht?", "qu'est-ce que j'ai fait hier ?", "¿qué hice ayer?"} {
		hits := search(t, ix, q, SearchOptions{Now: saturday})
		if got := paths(hits); len(got) != 2 || got[0] != "logs/2026-11-27.md" || got[1] != "logs/2026-11-27.md" {
			t.Errorf("%q: %v, want yesterday's two entries", q, got)
		}
	}
}
