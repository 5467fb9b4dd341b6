package main

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rivo/uniseg"
)

// table lays out rows for a terminal. text/tabwriter counts bytes of colour
// escapes and runes of wide letters as columns, so a bold header or a CJK
// cell shifted everything after it; here a cell's width is what the
// terminal shows, and padding goes outside the header's escapes.
type table struct {
	a      *app
	header []string
	rows   [][]string
	times  map[int]bool // the columns of times, never cut (timed)
}

// newTable starts a table with a bold header row (plain text).
func (a *app) newTable(header ...string) *table { return &table{a: a, header: header} }

// timed says which columns, by header, hold times: on a narrow terminal
// they are never cut (cut, "Fri 2026-11-27 15:08 …" has lost its zone).
func (t *table) timed(headers ...string) *table {
	if t.times == nil {
		t.times = map[int]bool{}
	}
	for _, h := range headers {
		i := slices.Index(t.header, h)
		if i < 0 {
			panic("table: no column " + h)
		}
		t.times[i] = true
	}
	return t
}

// row adds one row; cells may hold colour escapes.
func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// minCol is the narrowest a column is cut to when a table is fitted to the
// terminal (or its header's width, if wider): "2026-…" still says something.
const minCol = 8

// flush writes the table: every column but the last padded to its widest
// cell plus two spaces, as tabwriter did. On a terminal narrower than that,
// the widest columns are cut (with "…") until a row fits its columns.
func (t *table) flush() error {
	var widths, floors []int
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
				floors = append(floors, minCol)
			}
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	for i, h := range t.header {
		floors[i] = max(minCol, displayWidth(h))
		if t.times[i] {
			floors[i] = widths[i] // a time cut loses its zone or its minutes: never cut
		}
	}
	widths = fitWidths(widths, floors, 2, t.a.io.cols())
	var b strings.Builder
	line := func(cells []string, style func(string) string) {
		for i, c := range cells {
			c = fitCell(c, widths[i])
			b.WriteString(style(c))
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-displayWidth(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	line(t.header, func(s string) string { return t.a.ansi("1", s) })
	for _, r := range t.rows {
		line(r, func(s string) string { return s })
	}
	_, err := t.a.io.Out.Write([]byte(b.String()))
	return err
}

// sgr matches the colour and style escapes this program writes.
var sgr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;]*m") })

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int { return uniseg.StringWidth(sgr().ReplaceAllString(s, "")) }
