package printable

import "testing"

func TestPluralAndCount(t *testing.T) {
	for _, c := range []struct {
		n           int
		word, count string
	}{{0, "files", "0 files"}, {1, "file", "1 file"}, {2, "files", "2 files"}} {
		if got := Plural(c.n, "file", "files"); got != c.word {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.word)
		}
		if got := Count(c.n, "file", "files"); got != c.count {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.count)
		}
	}
}
