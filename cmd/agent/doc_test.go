package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// The docs and the code cannot drift apart: every command line shown in
// README.md's command table and in the synopses of docs/*.md must name
// commands that exist, and flags that those commands (or the root) define.

var (
	backticked = regexp.MustCompile("`(agent [^`]+)`")
	flagRef    = regexp.MustCompile(`(?:^|[\s\[|(])(--?[a-z][a-z0-9-]*)`)
	word       = regexp.MustCompile(`^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$`)
)

// docCommandLines returns the documented command lines with where they are.
func docCommandLines(t *testing.T) map[string]string {
	t.Helper()
	lines := map[string]string{}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `agent ") {
			cell := strings.SplitN(l, " | ", 2)[0]
			for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
				lines[strings.ReplaceAll(m[1], `\|`, "|")] = "README.md"
			}
		}
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		in := false
		var cont string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				in = !in
				continue
			}
			if !in {
				continue
			}
			switch {
			case strings.HasPrefix(l, "agent "):
				cont = l
			case cont != "" && strings.HasPrefix(l, "      "): // a synopsis wrapped onto the next line
				cont += " " + strings.TrimSpace(l)
			default:
				cont = ""
				continue
			}
			lines[strings.SplitN(cont, "  ", 2)[0]] = filepath.Base(d) // a comment after two spaces is not syntax
		}
	}
	return lines
}

func TestDocumentedCommandsAndFlagsExist(t *testing.T) {
	root := (&app{io: &iostreams{}}).rootCommand()
	lines := docCommandLines(t)
	if len(lines) < 20 {
		t.Fatalf("found only %d documented command lines; is the parser still right?", len(lines))
	}
	for line, where := range lines {
		checkSynopsis(t, where, line, root, strings.Fields(line)[1:], []*cli.Command{root})
	}
}

// checkSynopsis resolves the command words of a synopsis under c, then
// checks its flags against the command reached and those above it (path).
// "show|set KEY VALUE|proposals [--all]" lists subcommands, each with its
// own arguments and flags.
func checkSynopsis(t *testing.T, where, line string, c *cli.Command, words []string, path []*cli.Command) {
	t.Helper()
	for i, w := range words {
		if !word.MatchString(strings.SplitN(w, "|", 2)[0]) || len(c.Commands) == 0 {
			words = words[i:]
			break
		}
		if strings.Contains(w, "|") {
			for _, seg := range splitTopLevel(strings.Join(words[i:], " ")) {
				f := strings.Fields(seg)
				sub := c.Command(f[0])
				if sub == nil {
					t.Errorf("%s: %q: no command %q under %s", where, line, f[0], c.FullName())
					continue
				}
				checkSynopsis(t, where, line, sub, f[1:], append(path, c))
			}
			return
		}
		sub := c.Command(w)
		if sub == nil {
			t.Errorf("%s: %q: no command %q under %s", where, line, w, c.FullName())
			return
		}
		path, c = append(path, c), sub
		if i == len(words)-1 {
			words = nil
		}
	}
	for _, m := range flagRef.FindAllStringSubmatch(strings.Join(words, " "), -1) {
		name := strings.TrimLeft(m[1], "-")
		if name == "" {
			continue
		}
		if !slices.ContainsFunc(append(path, c), func(c *cli.Command) bool { return hasFlag(c, name) }) {
			t.Errorf("%s: %q: no flag %s on %s", where, line, m[1], c.Name)
		}
	}
}

// splitTopLevel splits s at the | that are not inside [ ] or ( ).
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// hasFlag reports whether c defines the flag name.
func hasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}
