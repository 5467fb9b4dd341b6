package index

import "testing"

// A typo is never corrected to a stopword: "abuot" is one edit from
// "about", which the text holds, but searching "about" finds every note
// that says it; the word is searched as typed (issue 50: the mutant
// dropping stopword(term) from nearestTerm passed every unit test, only
// memorybench saw it).
func TestTypoIsNotCorrectedToAStopword(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nA letter from Lisbon about the harbour.\n",
	})
	ix, _ := open(t, home)
	for _, q := range []string{"abuot harbour", "fromm harbour"} {
		hits := search(t, ix, q, SearchOptions{})
		if len(hits) == 0 {
			t.Fatalf("%q: no hit", q)
		}
		for _, c := range hits[0].Corrected {
			if stopword(c.Searched) {
				t.Errorf("%q: %q corrected to the stopword %q", q, c.Typed, c.Searched)
			}
		}
	}
}
