package main

import (
	"os"
	"strings"

	"golang.org/x/term"

	"agent/memory/printable"
)

// Output on a terminal is fitted to its columns: a table's widest cells are
// cut with "…", prose (snippets, doctor's details, /context's summary) is
// wrapped at spaces, never mid-word unless one word is wider than a line.
// Piped output is never fitted: a script needs the whole data.

// cols is the width stdout is drawn at: the terminal's columns, 80 when
// stdout is a terminal of unknown size (or a test's buffer posing as one),
// 0 when it is not a terminal at all, meaning "do not fit".
func (s *iostreams) cols() int {
	if !s.OutTTY {
		return 0
	}
	if f, ok := s.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// wrapWords breaks s into lines of at most width display columns, at spaces
// (runs of white space become one). A word wider than a line is cut, as
// the terminal would cut it anyway. Width 0 or less keeps s on one line.
func wrapWords(s string, width int) []string { return wrapText(s, width, true) }

// wrapText is wrapWords, cutting a word wider than a line only when cut
// (help and errors keep a long path or address whole: cut, it could not
// be copied).
func wrapText(s string, width int, cut bool) []string {
	words := strings.Fields(s)
	if width <= 0 {
		return []string{strings.Join(words, " ")}
	}
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, w := range words {
		ww := displayWidth(w)
		if curW > 0 && curW+1+ww <= width {
			cur.WriteByte(' ')
			cur.WriteString(w)
			curW += 1 + ww
			continue
		}
		if curW > 0 {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		for cut && ww > width && !strings.Contains(w, "\x1b") {
			head, rest := printable.Split(w, width)
			lines = append(lines, head)
			w, ww = rest, displayWidth(rest)
		}
		cur.WriteString(w)
		curW = ww
	}
	if curW > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// fitCell cuts a cell to width display columns, marking the cut with "…".
// A cell with colour escapes loses them when cut (a cut escape would leak
// its colour into the rest of the line).
func fitCell(s string, width int) string {
	if displayWidth(s) <= width {
		return s
	}
	plain := sgr().ReplaceAllString(s, "")
	head, _ := printable.Split(plain, max(width-1, 0))
	return head + "…"
}

// fitWidths shrinks a table's column widths (each cell's widest, sep
// columns between them) until the row fits in cols, taking from the widest
// column first and never below its floor (the header's width, at least
// minCol). cols 0 leaves the widths as they are.
func fitWidths(widths, floors []int, sep, cols int) []int {
	if cols <= 0 {
		return widths
	}
	total := sep * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	out := append([]int(nil), widths...)
	for total > cols {
		widest := -1
		for i, w := range out {
			if w > floors[i] && (widest < 0 || w > out[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break // nothing left to take: the terminal wraps it
		}
		out[widest]--
		total--
	}
	return out
}
