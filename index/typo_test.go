package index

import (
	"reflect"
	"testing"
)

// Typos are forgiven (issue 46): a word with no hit is searched as the
// nearest word of the index's vocabulary, and the search says so; a word
// with a hit is never replaced.
func TestTyposForgiven(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nDentist appointment moved to Thursday 10:00.\n",
		"logs/2026-11-19.md": "# 2026-11-19\n\n### 12:00\n\nBooked the flight to Lisbon for December.\n",
		"logs/2026-11-20.md": "# 2026-11-20\n\n### 18:00\n\nAna's birthday dinner in Ljubljana, bring the wine.\n",
		"logs/2026-11-21.md": "# 2026-11-21\n\n### 08:00\n\nThe dentists' strike ended; a dent in the car door.\n",
	})
	ix, _ := open(t, home)
	for _, tc := range []struct {
		query, path string
		fixed       []Correction
	}{
		{"dentsit", "logs/2026-11-18.md", []Correction{{"dentsit", "dentist"}}},
		{"lisbn flight", "logs/2026-11-19.md", []Correction{{"lisbn", "lisbon"}}},
		{"ljublana", "logs/2026-11-20.md", []Correction{{"ljublana", "ljubljana"}}},
		{"birtday", "logs/2026-11-20.md", []Correction{{"birtday", "birthday"}}},
		{"dentist", "logs/2026-11-18.md", nil}, // an exact hit stays
		{"dent", "logs/2026-11-21.md", nil},
	} {
		hits := search(t, ix, tc.query, SearchOptions{})
		if len(hits) == 0 {
			t.Errorf("%q: no hit", tc.query)
			continue
		}
		if hits[0].Path != tc.path || !reflect.DeepEqual(hits[0].Corrected, tc.fixed) {
			t.Errorf("%q: first hit %s corrected %v, want %s corrected %v", tc.query, hits[0].Path, hits[0].Corrected, tc.path, tc.fixed)
		}
	}
	// Too far from any word: nothing is guessed.
	if hits := search(t, ix, "xylophone", SearchOptions{}); hits != nil {
		t.Errorf("xylophone: %v", paths(hits))
	}
}

func TestEdits(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"dentsit", "dentist", 1}, {"lisbn", "lisbon", 1}, {"ljublana", "ljubljana", 1}, {"birtdai", "birthdai", 1}, {"abc", "abc", 0}, {"kitten", "sitting", 3}} {
		if got := edits(tc.a, tc.b, 5); got != tc.want {
			t.Errorf("edits(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := edits("kitten", "sitting", 1); got != 2 {
		t.Errorf("edits beyond the limit = %d, want limit+1", got)
	}
}

// Recall searches the words as given (NoCorrect): a name the memory does
// not hold yet is not turned into one it does, and the search still
// corrects for the user who asks it to.
func TestNoCorrectSearchesTheWordsAsGiven(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nLunch with Martin at the harbour.\n",
	})
	ix, _ := open(t, home)
	if hits := search(t, ix, "martn", SearchOptions{NoCorrect: true}); hits != nil {
		t.Errorf("martn with NoCorrect found %v", paths(hits))
	}
	if hits := search(t, ix, "martn", SearchOptions{}); len(hits) == 0 {
		t.Error("martn without NoCorrect found nothing")
	}
}
