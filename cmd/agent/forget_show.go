package main

import (
	"strings"

	"agent/core/forget"
	"agent/memory/printable"
)

// Before a forget asks, each place shows the line holding the phrase, the
// phrase marked: reversed on a colour terminal, «between guillemets» under
// NO_COLOR or on a terminal without colour (docs/cli-forget.md), cut to the
// terminal's width around the first occurrence. Piped and --json output
// carry the whole line unmarked (and --json the occurrences' offsets).

// forgetIndent is how far a place's line is indented under its place.
const forgetIndent = "    "

// forgetExcerpt is p's line as shown on a terminal cols wide (0: not cut),
// the phrase marked; "" when the place has no line.
func (a *app) forgetExcerpt(p forget.Place, cols int) string {
	if p.Text == "" {
		return ""
	}
	text, spans := escapeSpans(p.Text, p.Match)
	start, end := 0, len(text)
	if avail := cols - len(forgetIndent); cols > 0 && displayWidth(text) > avail && len(spans) > 0 {
		start, end = excerptWindow(text, spans[0], max(avail-2, 1)) // two columns for the "…"s
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	at := start
	for _, s := range spans {
		s.Start, s.End = max(s.Start, start), min(s.End, end)
		if s.Start >= s.End {
			continue
		}
		b.WriteString(text[at:s.Start])
		b.WriteString(a.markPhrase(text[s.Start:s.End]))
		at = s.End
	}
	b.WriteString(text[at:end])
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// markPhrase marks an occurrence: reverse video, or «…» without colour.
func (a *app) markPhrase(s string) string {
	if a.io.Color {
		return a.ansi("7", s)
	}
	return "«" + s + "»"
}

// escapeSpans escapes text for a terminal piece by piece, so the spans
// (byte offsets into text) still point at the occurrences in what it
// returns.
func escapeSpans(text string, spans []forget.Span) (string, []forget.Span) {
	var b strings.Builder
	var out []forget.Span
	at := 0
	for _, s := range spans {
		if s.Start < at || s.End > len(text) || s.Start >= s.End {
			continue // not in order, or out of the line: shown unmarked
		}
		b.WriteString(printable.Escape(text[at:s.Start]))
		from := b.Len()
		b.WriteString(printable.Escape(text[s.Start:s.End]))
		out = append(out, forget.Span{Start: from, End: b.Len()})
		at = s.End
	}
	b.WriteString(printable.Escape(text[at:]))
	return b.String(), out
}

// excerptWindow is the stretch of text, at most width display columns, that
// shows the occurrence s: a third of what is left before it, the rest
// after, or the occurrence's own head when it alone is wider.
func excerptWindow(text string, s forget.Span, width int) (start, end int) {
	mw := displayWidth(text[s.Start:s.End])
	if mw >= width {
		head, _ := printable.Split(text[s.Start:], width)
		return s.Start, s.Start + len(head)
	}
	before := tailCols(text[:s.Start], (width-mw)/3)
	start = s.Start - len(before)
	left := width - mw - displayWidth(before)
	end = s.End
	if after := text[s.End:]; after != "" && left > 0 {
		head, _ := printable.Split(after, left)
		if displayWidth(head) > left { // one wide cluster that does not fit
			head = ""
		}
		end += len(head)
	}
	return start, end
}

// tailCols is the end of s that takes at most n display columns, cut
// between grapheme clusters.
func tailCols(s string, n int) string {
	w := displayWidth(s)
	if w <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	_, rest := printable.Split(s, w-n)
	for rest != "" && displayWidth(rest) > n {
		_, rest = printable.Split(rest, 1)
	}
	return rest
}
