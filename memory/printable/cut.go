package printable

import (
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// OneLine folds s onto one line: every run of white space (line breaks
// included) becomes one space, and the ends are trimmed.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Cut shortens s to at most n runes, the last of them "…" when anything was
// cut. It cuts between grapheme clusters, so a letter keeps its accents and
// a flag or family emoji is kept or dropped whole (the cut may then be a
// little shorter than n). n < 1 gives "".
func Cut(s string, n int) string {
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes, end := 0, 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		c := utf8.RuneCountInString(g.Str())
		if runes+c > n-1 {
			break
		}
		runes += c
		_, end = g.Positions()
	}
	return s[:end] + "…"
}

// Split splits s after at most width display columns, between grapheme
// clusters, for wrapping: head is at least one cluster, so a wide
// character in a narrow terminal still moves on.
func Split(s string, width int) (head, rest string) {
	g := uniseg.NewGraphemes(s)
	w, end := 0, 0
	for g.Next() {
		cw := g.Width()
		if w+cw > width && end > 0 {
			return s[:end], s[end:]
		}
		w += cw
		_, end = g.Positions()
	}
	return s, ""
}

// CutBytes is Cut for a budget in bytes rather than runes: at most n bytes,
// "…" (three of them) included when anything was cut. n < 3 gives "" for a
// text that does not fit.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end := 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		_, to := g.Positions()
		if to > n-len("…") {
			break
		}
		end = to
	}
	if n < len("…") {
		return ""
	}
	return s[:end] + "…"
}
