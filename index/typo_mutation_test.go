package index

import "testing"

// A typo is corrected only to a word a person meant: never to a stopword
// ("abuot" is one edit from "about", "fromm" from "from"), never to a term
// under three letters ("boxes", cut to "box", is one edit from "bo"), and a
// word under four letters is searched as typed ("ann" is one edit from
// "ana"). Issue 50: the mutants dropping stopword(term) from nearestTerm,
// lowering its length floor to 1, and lowering corrections' typoMinLen
// check to 2 each passed every unit test (only memorybench saw the first).
func TestTyposAreNotGuessedWhereNoGuessIsMeant(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nBo Diddley and Ana sent a letter from Lisbon about the harbour.\n",
	})
	ix, _ := open(t, home)
	for _, q := range []string{"abuot harbour", "fromm harbour", "boxes harbour", "ann harbour"} {
		hits := search(t, ix, q, SearchOptions{})
		if len(hits) == 0 {
			t.Errorf("%q: no hit", q)
			continue
		}
		if c := hits[0].Corrected; len(c) != 0 {
			t.Errorf("%q: corrected %v, want the words searched as typed", q, c)
		}
	}
}
