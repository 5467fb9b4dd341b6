package distill

import "testing"

// A fact is stored as the model wrote it, on one line: the joiners that
// shape a word (Persian ZWNJ) or an emoji (ZWJ) are part of the words and
// stay; other invisible characters and line breaks become one space.
func TestOneLineKeepsJoiners(t *testing.T) {
	for in, want := range map[string]string{
		"Sara می\u200cخواهد tea":      "Sara می\u200cخواهد tea",
		"family 👨\u200d👩\u200d👧 trip": "family 👨\u200d👩\u200d👧 trip",
		"a\u200bb\nc\x1bd":            "a b c d",
	} {
		if got := oneLine(in, 100); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
