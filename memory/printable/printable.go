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
	"unicode/utf16"
	"unicode/utf8"
)

// Escape returns s with every invisible character (see invisible) but
// newline and tab written as an escape (\x1b, \r, \u200b, \u202e), so
// nothing in it acts on the terminal, reorders what a line appears to say
// or hides there. A joiner right after a character shown as itself stays:
// it shapes an emoji sequence (👨‍👩‍👧) or a word (Persian, Indic scripts);
// so do tag characters after 🏴 (a subdivision flag), and only there, since
// after any other character they are hidden text. Bytes that are not valid UTF-8 pass unchanged: a streamed
// reply may split a character between two pieces, and the terminal joins
// them again. Text without such characters comes back as it was.
func Escape(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && invisible(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	prev, _ := utf8.DecodeLastRuneInString(s[:i]) // the rune before, RuneError when none
	shown := i > 0 && !unicode.IsSpace(prev)      // and shown as itself
	for rest := s[i:]; rest != ""; {
		r, n := utf8.DecodeRuneInString(rest)
		raw := rest[:n]
		rest = rest[n:]
		if r == '\n' || r == '\t' || !invisible(r) || shown && joins(prev, r) {
			b.WriteString(raw) // invalid bytes too, as they came
			shown = !unicode.IsSpace(r) && !(r == utf8.RuneError && n == 1)
			prev = r
			continue
		}
		shown = false
		switch {
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// invisible is the one definition of a character a terminal does not show
// as itself: a control (C0, DEL, C1, newline and tab included), a format
// character (bidi overrides, isolates and marks, zero-width spaces and
// joiners, the byte-order mark, soft hyphen) or a line or paragraph
// separator. Private-use and (to Go's tables) unassigned code points are
// not: a font draws the one, and the other may be a newer emoji.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// joins reports whether the invisible r, after prev (shown), joins it to
// what follows: ZWNJ and ZWJ after anything; an emoji tag character after
// 🏴 or another tag (the flags of England, Scotland, Wales).
func joins(prev, r rune) bool {
	tag := func(r rune) bool { return r >= 0xe0020 && r <= 0xe007f }
	return r == '\u200c' || r == '\u200d' || tag(r) && (prev == 0x1f3f4 || tag(prev))
}

// EscapeInvisible returns s with every invisible character (newline and
// tab too) written as \uXXXX, the JSON escape (a surrogate pair beyond the
// BMP), so a line of JSON stays one line of JSON and shows every character.
func EscapeInvisible(s string) string {
	if !strings.ContainsFunc(s, invisible) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case !invisible(r):
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
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
// Go-escaped double-quoted string when it holds an invisible character (an
// ANSI escape, a bidi override, a zero-width space or joiner), which single
// quotes would pass to the terminal raw, or a space other than ' ' (one
// word would look like two).
func Word(s string) string {
	switch {
	case s == "":
		return "''"
	case only(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-${}", r)
	}):
		return s
	case !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return invisible(r) || unicode.IsSpace(r) && r != ' ' }):
		return strconv.QuoteToGraphic(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// only reports whether every rune of s satisfies ok.
func only(s string, ok func(rune) bool) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !ok(r) }) < 0
}
