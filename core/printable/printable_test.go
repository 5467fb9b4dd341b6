package printable

import "testing"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain words, numbers 42 and ünïcode ✓", "plain words, numbers 42 and ünïcode ✓"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`},
		{"over\rwrite", `over\rwrite`},
		{"nul\x00 del\x7f", `nul\x00 del\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"half a rune \xe2\x9c", "half a rune \xe2\x9c"}, // a stream may split a character: the bytes pass
		{"\x1b and half a rune \xe2\x9c", "\\x1b and half a rune \xe2\x9c"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEscapeLeavesPrintableTextAlone(t *testing.T) {
	s := "# Memory\n\n## Facts\n\n- Ada likes tea — strong, no sugar.\n"
	if Escape(s) != s {
		t.Errorf("changed: %q", Escape(s))
	}
}
