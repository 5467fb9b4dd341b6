// Package printable makes text safe to show on a terminal: control
// characters written by the model or kept in the user's data (an escape
// sequence in a reminder, a reply that clears the screen or rewrites the
// window title) are shown as Go-style escapes instead of acting.
package printable

import (
	"fmt"
	"strings"
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
