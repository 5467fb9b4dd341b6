// Package callview shows a tool call to the user who is asked to approve
// it: every argument in full, with control and invisible characters
// escaped (an ANSI sequence or a bidi override cannot redraw or reorder
// what is shown), wrapped to the terminal's width, and paged when it is
// taller than the terminal. Nothing is ever cut: what the user approves is
// exactly what runs.
package callview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"

	"agent/memory/printable"
)

// Lines renders args, one argument after another in name order: a
// one-line string or a scalar on the argument's own line, quoted and
// escaped as Go would write it; a string of several lines, an object or
// an array below it, each of its lines after a "│" gutter.
func Lines(args map[string]any) []string {
	if len(args) == 0 {
		return []string{"  (no arguments)"}
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		head := "  " + printable.Name(k) + ":"
		var block []string
		switch v := args[k].(type) {
		case string:
			if !strings.Contains(v, "\n") {
				out = append(out, head+" "+strconv.QuoteToGraphic(v))
				continue
			}
			parts := strings.Split(v, "\n")
			head += fmt.Sprintf(" (text, %d lines)", len(parts))
			for _, p := range parts {
				q := strconv.QuoteToGraphic(p)
				block = append(block, q[1:len(q)-1])
			}
		default:
			block = jsonLines(v)
			if len(block) == 1 {
				out = append(out, head+" "+block[0])
				continue
			}
		}
		out = append(out, head)
		for _, b := range block {
			out = append(out, "  │ "+b)
		}
	}
	return out
}

// jsonLines is v as indented JSON, with what JSON leaves raw and a
// terminal would not show (format characters such as bidi overrides,
// line and paragraph separators) escaped as \uXXXX.
func jsonLines(v any) []string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return []string{fmt.Sprintf("%#v", v)}
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = printable.EscapeInvisible(l)
	}
	return lines
}

// Wrap breaks each line at width display columns; a continuation starts
// with "  ↪ " so it is not mistaken for a line of its own.
func Wrap(lines []string, width int) []string {
	const cont = "  ↪ "
	if width < 20 {
		width = 20
	}
	var out []string
	for _, l := range lines {
		first := true
		for {
			limit := width
			if !first {
				limit -= uniseg.StringWidth(cont)
			}
			head, rest := printable.Split(l, limit)
			if !first {
				head = cont + head
			}
			out = append(out, head)
			if rest == "" {
				break
			}
			l, first = rest, false
		}
	}
	return out
}

// Page writes lines to w, a screen of height rows at a time: between
// screens it asks through readLine (Enter for more, n or q to stop). It
// reports whether every line was shown; the caller refuses the call when
// it was not. Lines that fit, with the question below them, are written
// at once.
func Page(w io.Writer, lines []string, height int, readLine func(prompt string) (string, error)) bool {
	room := height - 2 // the question and the line the cursor rests on
	if room < 3 {
		room = 3
	}
	for start := 0; start < len(lines); start += room {
		end := min(start+room, len(lines))
		for _, l := range lines[start:end] {
			fmt.Fprintln(w, l)
		}
		if end == len(lines) {
			return true
		}
		ans, err := readLine(fmt.Sprintf("-- lines %d-%d of %d: Enter for more, n to refuse -- ", start+1, end, len(lines)))
		if err != nil {
			return false
		}
		switch strings.ToLower(strings.TrimSpace(ans)) {
		case "n", "no", "q":
			return false
		}
	}
	return true
}
