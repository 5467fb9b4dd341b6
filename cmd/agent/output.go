package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/memory/printable"
)

// writeJSON is the one JSON exporter: indented on a TTY, compact otherwise,
// always one value followed by a newline. Field names are part of the CLI
// contract; change them only with the README.
func (a *app) writeJSON(v any) error {
	enc := json.NewEncoder(a.io.Out)
	enc.SetEscapeHTML(false)
	if a.io.OutTTY {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// writeTSV writes one record per line for scripts: fields separated by tabs,
// with tabs and newlines inside a field escaped so a line is always a record.
func writeTSV(w io.Writer, fields ...string) error {
	for i, f := range fields {
		// After the backslashes are doubled, so an escape stays readable as one.
		fields[i] = printable.Escape(tsvEscaper.Replace(f))
	}
	_, err := fmt.Fprintln(w, strings.Join(fields, "\t"))
	return err
}

var tsvEscaper = strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n", "\r", "\\r")

// textArg returns the command's text: its words joined by spaces, as chat
// joins them (agent log booked flights), or standard input when the only
// word is "-". Empty text is refused: an empty note is always a mistake.
func (a *app) textArg(cmd *cli.Command, what string) (string, error) {
	if cmd.Args().Len() == 0 {
		return "", usagef("%s needs TEXT (or - to read standard input), e.g.: %s", cmd.Name, textExample(cmd))
	}
	text := strings.Join(cmd.Args().Slice(), " ")
	if text == "-" {
		b, err := io.ReadAll(a.io.In)
		if err != nil {
			return "", fmt.Errorf("read standard input: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		switch what {
		case "query":
			return "", usagef("empty query: nothing to search for")
		case "phrase":
			return "", usagef("empty phrase: nothing to forget")
		}
		return "", usagef("empty %s: nothing to write", what)
	}
	return text, nil
}

// textExample is how a command that takes text is used, for its errors.
func textExample(cmd *cli.Command) string {
	switch cmd.Name {
	case "log":
		return "agent log booked flights to Lisbon"
	case "add":
		return "agent memory add I prefer a window seat"
	case "remind":
		return "agent remind call mom --at +1h"
	case "forget":
		return "agent forget the door code is 4711"
	}
	return "agent " + cmd.Name + " some words"
}

// ansi wraps s in an SGR sequence when colour is on.
func (a *app) ansi(code, s string) string {
	if !a.io.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
