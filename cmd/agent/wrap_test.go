package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// helpOf runs `agent PATH… --help` in-process, stdout a buffer (piped, or
// posing as an 80-column terminal when tty).
func helpOf(t *testing.T, tty bool, path []string) string {
	t.Helper()
	var out, errb bytes.Buffer
	streams := &iostreams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: tty}
	t.Setenv("HOME", t.TempDir())
	if code := run(context.Background(), append(append([]string{"agent"}, path...), "--help"), streams); code != 0 {
		t.Fatalf("agent %s --help: exit %d\n%s", strings.Join(path, " "), code, errb.String())
	}
	return out.String()
}

// Every help text, `agent --help` and every `agent X … --help`, fits 80
// columns on a terminal and piped alike, wrapped at spaces: no line wider
// than 80 display columns, and the words are urfave/cli's own, none cut
// in two or lost (so piped help is never cut either).
func TestEveryHelpFitsEightyColumns(t *testing.T) {
	root := (&app{io: &iostreams{}}).rootCommand()
	var paths [][]string
	var walk func(c *cli.Command, path []string)
	walk = func(c *cli.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands {
			if !sub.Hidden {
				walk(sub, append(append([]string(nil), path...), sub.Name))
			}
		}
	}
	walk(root, nil)
	if len(paths) < 40 {
		t.Fatalf("walked only %d commands", len(paths))
	}
	wrapped := 0
	for _, path := range paths {
		for _, tty := range []bool{true, false} {
			help := helpOf(t, tty, path)
			for _, l := range strings.Split(help, "\n") {
				if w := displayWidth(l); w > 80 {
					t.Errorf("agent %s --help (tty %v): a line of %d columns: %q", strings.Join(path, " "), tty, w, l)
				}
			}
			// The same words as urfave/cli renders unwrapped, in order.
			raw := unwrappedHelp(t, path)
			if got, want := strings.Fields(help), strings.Fields(raw); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("agent %s --help (tty %v): words changed by the wrap:\n%s\nwant the words of:\n%s", strings.Join(path, " "), tty, help, raw)
			}
			if strings.Count(help, "\n") > strings.Count(raw, "\n") {
				wrapped++
			}
		}
	}
	if wrapped == 0 {
		t.Error("no help was wrapped: is the printer in use?")
	}
}

// unwrappedHelp is a command's help as urfave/cli renders it, before any
// wrap (columns beyond any line).
func unwrappedHelp(t *testing.T, path []string) string {
	t.Helper()
	var out bytes.Buffer
	root := (&app{io: &iostreams{In: strings.NewReader(""), Out: &out, Err: &out}}).rootCommand()
	root.Writer = &helpOut{Writer: &out, cols: 1 << 30}
	if err := root.Run(context.Background(), append(append([]string{"agent"}, path...), "--help")); err != nil {
		t.Fatalf("agent %s --help: %v", strings.Join(path, " "), err)
	}
	return out.String()
}

// wrapHelp keeps a line's continuation under its text, never cuts a word
// wider than the line, and leaves short lines byte for byte.
func TestWrapHelp(t *testing.T) {
	in := "GLOBAL OPTIONS:\n   --embed-model string  Ollama embedding model for memory search by meaning, e.g. nomic-embed-text\n   --json  short\n" +
		"   a-line-with-a-word-far-wider-than-the-columns-given-to-it-here and words\n"
	got := wrapHelp(in, 40)
	want := "GLOBAL OPTIONS:\n" +
		"   --embed-model string  Ollama\n" + // a head past half the line: hung four in
		"       embedding model for memory search\n" +
		"       by meaning, e.g. nomic-embed-text\n" +
		"   --json  short\n" +
		"   a-line-with-a-word-far-wider-than-the-columns-given-to-it-here\n" +
		"       and words\n"
	if got != want {
		t.Errorf("wrapHelp at 40:\n%s\nwant:\n%s", got, want)
	}
	got = wrapHelp("   init  create the workspace (idempotent: never overwrites a file)", 40)
	want = "   init  create the workspace\n         (idempotent: never overwrites a\n         file)"
	if got != want {
		t.Errorf("wrapHelp at 40:\n%s\nwant:\n%s", got, want)
	}
}

// An error on a terminal is wrapped at spaces by agent, its continuation
// under the text; piped it stays one line.
func TestErrorWrappedAtSpacesInATerminal(t *testing.T) {
	h := newHarness(t)
	p := h.startPTYCols(40, nil, "sessions", "delete")
	if err := p.wait(); err == nil {
		t.Fatal("sessions delete with nothing to delete succeeded")
	}
	out := strings.ReplaceAll(p.all(), "\r\n", "\n")
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if w := displayWidth(l); w > 40 {
			t.Errorf("a line of %d columns in a 40-column terminal: %q", w, l)
		}
	}
	msg := "sessions delete takes NAME…, --before DATE, --unanswered or --empty"
	if !regexp.MustCompile(`^agent: sessions delete takes \S+\n {7}\S`).MatchString(out) {
		t.Errorf("the error is not wrapped at spaces under its text:\n%s", out)
	}
	if got := regexp.MustCompile(`\n +`).ReplaceAllString(strings.TrimSpace(out), " "); got != "agent: "+msg {
		t.Errorf("joined, the wrapped error reads %q, want %q", got, "agent: "+msg)
	}
	r := h.run("", "sessions", "delete")
	if r.stderr != "agent: "+msg+"\n" {
		t.Errorf("piped, the error is %q, want it on one line", r.stderr)
	}
}
