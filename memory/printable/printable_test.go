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
		// Invisible, as EscapeInvisible and Word have it: zero-width space,
		// line separator, byte-order mark, bidi marks, soft hyphen.
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"line\u2028sep", `line\u2028sep`},
		{"\ufeffbom", `\ufeffbom`},
		{"mark\u200f", `mark\u200f`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"beyond \U000e0001", `beyond \U000e0001`},
		// A joiner after a character shown as itself joins: kept.
		{"family 👨\u200d👩\u200d👧", "family 👨\u200d👩\u200d👧"},
		{"scotland 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "scotland 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"},
		{"می\u200cخواهم", "می\u200cخواهم"},
		// Anywhere else it hides: escaped.
		{"\u200dlead", `\u200dlead`},
		{"after space \u200dx", `after space \u200dx`},
		{"\x1b\u200d", `\x1b\u200d`},
		// Tag characters make a flag after 🏴 only: after any other character
		// they are text the terminal hides (ASCII smuggling), so escaped.
		{"ok\U000e0069\U000e0067", `ok\U000e0069\U000e0067`},
		{"👍\U000e0061", `👍\U000e0061`},
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

func TestEscapeInvisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"owner": "me"}`, `{"owner": "me"}`},
		{"ünïcode ✓ 日本", "ünïcode ✓ 日本"},
		{"me\u2028you", `me\u2028you`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"del\x7f c1\u009b", `del\u007f c1\u009b`},
		{"\ufeffbom", `\ufeffbom`},
		{"two\nlines", `two\u000alines`},
		{"zwj 👨\u200d👩", `zwj 👨\u200d👩`},
		// Beyond the BMP, a JSON escape is a surrogate pair.
		{"tag \U000e0001", `tag \udb40\udc01`},
		// Private use and, to Go's tables, unassigned: drawn by a font.
		{"icon \ue0b0", "icon \ue0b0"},
	} {
		if got := EscapeInvisible(c.in); got != c.want {
			t.Errorf("EscapeInvisible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"read_file", "read_file"},
		{"a.b-c_D9", "a.b-c_D9"},
		{"", `""`},
		{"a b", `"a b"`},
		{"key: value", `"key: value"`},
		{"é", `"é"`},
		{"x\x1b[2J", `"x\x1b[2J"`},
		{"two\nlines", `"two\nlines"`},
		{"\u202eevil", `"\u202eevil"`},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWord(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"npx", "npx"},
		{"@modelcontextprotocol/server-github", "@modelcontextprotocol/server-github"},
		{"GITHUB_TOKEN=${GITHUB_TOKEN}", "GITHUB_TOKEN=${GITHUB_TOKEN}"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"日本", "'日本'"},
		{"x\x1b[2J", `"x\x1b[2J"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"bidi \u202eevil", `"bidi \u202eevil"`},
		{"nbsp\u00a0here", "\"nbsp\u00a0here\""}, // a space of another kind: quoted, shown
		{"half a rune \xe2\x9c", `"half a rune \xe2\x9c"`},
	} {
		if got := Word(c.in); got != c.want {
			t.Errorf("Word(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  one\n\ttwo  three\r\n", "one two three"},
		{"already one line", "already one line"},
	} {
		if got := OneLine(c.in); got != c.want {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"one more char", 12, "one more ch…"},
		{"ünïcödé wörds", 5, "ünïc…"},
		{"日本語のテキスト", 4, "日本語…"},
		// A letter and its combining accent are one grapheme: kept whole or dropped whole.
		{"cafe\u0301 noir", 5, "caf…"},
		{"cafe\u0301 noir", 6, "cafe\u0301…"},
		{"flag 🇫🇷 here", 7, "flag …"},
		{"anything", 1, "…"},
		{"anything", 0, ""},
	} {
		got := Cut(c.in, c.n)
		if got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if n := len([]rune(got)); n > c.n {
			t.Errorf("Cut(%q, %d) is %d runes", c.in, c.n, n)
		}
	}
}

func TestCutBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"a longer text", 8, "a lon…"},
		{"ééééé", 8, "éé…"}, // 2 bytes each: a third would not leave room for "…"
		{"cafe\u0301s", 6, "caf…"},
		{"abcdef", 2, ""},
	} {
		got := CutBytes(c.in, c.n)
		if got != c.want || len(got) > c.n {
			t.Errorf("CutBytes(%q, %d) = %q (%d bytes), want %q", c.in, c.n, got, len(got), c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in         string
		width      int
		head, rest string
	}{
		{"abcdef", 4, "abcd", "ef"},
		{"abc", 4, "abc", ""},
		{"日本語", 4, "日本", "語"}, // two columns each
		{"日本語", 1, "日", "本語"}, // at least one grapheme, so wrapping moves on
		{"e\u0301e\u0301e\u0301", 2, "e\u0301e\u0301", "e\u0301"},
	} {
		head, rest := Split(c.in, c.width)
		if head != c.head || rest != c.rest {
			t.Errorf("Split(%q, %d) = %q, %q; want %q, %q", c.in, c.width, head, rest, c.head, c.rest)
		}
	}
}

// One definition of invisible: what Escape escapes (newline and tab aside,
// joiners after a visible character aside) EscapeInvisible escapes and Word
// double-quotes, and the other way round.
func TestOneDefinitionOfInvisible(t *testing.T) {
	for _, r := range []rune{'\x1b', '\r', 0x7f, 0x9b, 0x200b, 0x2028, 0x2029, 0x202e, 0x2066, 0xfeff, 0x200e, 0x061c, 0xad, 0x200d, 0xe0001} {
		s := "x" + string(r) + " x"
		if r == 0x200d {
			s = " " + string(r) + "x" // a joiner that joins nothing
		}
		if Escape(s) == s || EscapeInvisible(s) == s || Word(s)[0] != '"' {
			t.Errorf("U+%04X: Escape %q, EscapeInvisible %q, Word %s: want all three to escape it", r, Escape(s), EscapeInvisible(s), Word(s))
		}
	}
	for _, r := range []rune{'a', 'é', '日', '✓', '🙂', 0xe0b0, 0x1fae8 /* Unicode 15 */, 0x0301} {
		s := "x" + string(r) + "x"
		if Escape(s) != s || EscapeInvisible(s) != s || Word(s) != "'"+s+"'" && Word(s) != s {
			t.Errorf("U+%04X: Escape %q, EscapeInvisible %q, Word %s: want it shown as itself", r, Escape(s), EscapeInvisible(s), Word(s))
		}
	}
}
