package index

import "testing"

// A typo is never corrected to a term under three letters: "boxes" (no
// hit) is one edit from "bo" once its ending is cut ("box"), and "bo" is
// in the text, but a two-letter word is no guess at what was meant
// (issue 50: the mutant lowering the floor of nearestTerm's lengths to 1
// passed every unit test).
func TestTypoIsNotCorrectedToAShortTerm(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nBo Diddley played by the harbour.\n",
	})
	ix, _ := open(t, home)
	hits := search(t, ix, "boxes harbour", SearchOptions{})
	if len(hits) == 0 {
		t.Fatal("no hit")
	}
	for _, c := range hits[0].Corrected {
		if len([]rune(c.Searched)) < 3 {
			t.Errorf("%q corrected to %q, a term under three letters", c.Typed, c.Searched)
		}
	}
}
