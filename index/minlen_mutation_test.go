package index

import "testing"

// A word under four letters is searched as typed, never corrected: "ann"
// is one edit from "ana", which the text holds, but a short word is as
// likely a word of its own (issue 50: the mutant lowering typoMinLen's
// check in corrections to 2 passed every unit test).
func TestShortWordIsNotCorrected(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nAna walked to the harbour.\n",
	})
	ix, _ := open(t, home)
	hits := search(t, ix, "ann harbour", SearchOptions{})
	if len(hits) == 0 {
		t.Fatal("no hit")
	}
	if c := hits[0].Corrected; len(c) != 0 {
		t.Errorf("a three-letter word was corrected: %v", c)
	}
}
