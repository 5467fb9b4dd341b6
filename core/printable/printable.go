// Package printable makes text safe to show on a terminal: control
// characters written by the model or kept in the user's data (an escape
// sequence in a reminder, a reply that clears the screen or rewrites the
// window title) are shown as Go-style escapes instead of acting. It is the
// one escaping rule: text (Escape), a JSON line (EscapeInvisible), a name
// (Name) and a word of a command line (Word).
package printable

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every control character but newline and tab
// written as an escape (\x1b, \r, \u009b), and the bidirectional overrides
// and isolates that reorder what a line appears to say (U+202A–U+202E,
// U+2066–U+2069) likewise. Bytes that are not valid UTF-8 pass unchanged:
// a streamed reply may split a character between two pieces, and the
// terminal joins them again. Text without such characters comes back as
// it was.
func Escape(s string) string {
	i := strings.IndexFunc(s, needsEscape)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for rest := s[i:]; rest != ""; {
		r, n := utf8.DecodeRuneInString(rest)
		raw := rest[:n]
		rest = rest[n:]
		if !needsEscape(r) {
			b.WriteString(raw) // invalid bytes too, as they came
			continue
		}
		switch {
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func needsEscape(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// EscapeInvisible returns s with every rune a terminal would not show as
// itself (not unicode.IsGraphic: controls, format characters such as bidi
// overrides and zero-width spaces, line and paragraph separators) written
// as \uXXXX, the JSON escape, so a line of JSON stays JSON.
func EscapeInvisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// Name shows a name (an argument's, a tool's) as it is when it is a plain
// word (ASCII letters and digits, '_', '-', '.'), quoted and escaped as Go
// would write it otherwise: a name can hold ": ", a newline or an escape
// sequence as well as a value can.
func Name(s string) string {
	if s != "" && only(s, func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		return s
	}
	return strconv.QuoteToGraphic(s)
}

// Word shows s as one word of a command line that reads as it runs and
// shows every character: as it is when made only of characters sh leaves
// alone (and ${VAR}, written unexpanded), else in single quotes; as a
// Go-escaped double-quoted string when it holds a control or invisible
// character (an ANSI escape, a bidi override, a zero-width space), which
// single quotes would pass to the terminal raw.
func Word(s string) string {
	switch {
	case s == "":
		return "''"
	case only(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-${}", r)
	}):
		return s
	case !utf8.ValidString(s) || !only(s, func(r rune) bool { return unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r) }):
		return strconv.QuoteToGraphic(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// only reports whether every rune of s satisfies ok.
func only(s string, ok func(rune) bool) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !ok(r) }) < 0
}
