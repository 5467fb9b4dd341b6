package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"
)

// Help and errors fit the terminal's width, wrapped at spaces here rather
// than mid-word by the terminal. Help is wrapped at the terminal's columns,
// and at 80 when piped: it is read by a person either way (`agent --help |
// less`), and wrapping at spaces cuts nothing. Errors are wrapped only on a
// terminal: piped, a script greps whole lines.

// helpOut is the root command's Writer: stdout, with the columns help is
// wrapped at.
type helpOut struct {
	io.Writer
	cols int
}

// helpCols is the width help is wrapped at: the terminal's, 80 piped.
func (s *iostreams) helpCols() int {
	if c := s.cols(); c > 0 {
		return c
	}
	return 80
}

var setHelpPrinter sync.Once

// useHelpPrinter makes urfave/cli's help go through printHelp.
func useHelpPrinter() { setHelpPrinter.Do(func() { cli.HelpPrinter = printHelp }) }

// printHelp renders help as urfave/cli does (its columns aligned), then
// wraps each line wider than out's columns.
func printHelp(out io.Writer, templ string, data any) {
	var buf bytes.Buffer
	cli.DefaultPrintHelp(&buf, templ, data)
	cols := 80
	if h, ok := out.(*helpOut); ok && h.cols > 0 {
		cols = h.cols
	}
	io.WriteString(out, wrapHelp(buf.String(), cols))
}

// wrapHelp wraps each line of help wider than cols at spaces. A line's
// continuation is indented to where its text starts: for "  --home value
// workspace directory" under "workspace", the column after the first run
// of two spaces past the indent when that leaves half the line, else four
// past the indent.
func wrapHelp(help string, cols int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(help, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if displayWidth(body) <= cols {
			b.WriteString(line)
			continue
		}
		indent := len(body) - len(strings.TrimLeft(body, " "))
		head, hang := body[:indent], indent+4
		if i := strings.Index(body[indent:], "  "); i > 0 {
			start := indent + i + len(body[indent+i:]) - len(strings.TrimLeft(body[indent+i:], " "))
			head = body[:start]
			if displayWidth(head) <= cols/2 {
				hang = displayWidth(head)
			}
		}
		first := displayWidth(head)
		lines := wrapText(body[len(head):], cols-hang, false)
		// The first line has the head's columns: refill it if they differ.
		if first != hang {
			lines = wrapText(strings.Join(lines, " "), cols-first, false)
			if len(lines) > 1 {
				rest := wrapText(strings.Join(lines[1:], " "), cols-hang, false)
				lines = append(lines[:1], rest...)
			}
		}
		b.WriteString(head + lines[0] + "\n")
		for _, l := range lines[1:] {
			b.WriteString(strings.Repeat(" ", hang) + l + "\n")
		}
		if !strings.HasSuffix(line, "\n") { // the last line had none
			s := b.String()
			b.Reset()
			b.WriteString(strings.TrimSuffix(s, "\n"))
		}
	}
	return b.String()
}

// errCols is the width a message to w is wrapped at: the terminal's
// columns (80 when it does not say), 0 when w is not a terminal.
func errCols(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
		return c
	}
	return 80
}

// errLines is one line of a message to stderr as printed: "agent: " and
// the text, wrapped at cols (0: not at all) with its continuation indented
// under the text.
func errLines(text string, cols int) string {
	const prefix = "agent: "
	if cols <= 0 || displayWidth(prefix+text) <= cols {
		return prefix + text + "\n"
	}
	var lines []string
	for _, part := range strings.Split(text, "\n") {
		lines = append(lines, wrapText(part, cols-len(prefix), false)...)
	}
	return prefix + strings.Join(lines, "\n"+strings.Repeat(" ", len(prefix))) + "\n"
}
