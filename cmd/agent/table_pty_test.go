package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// Tables shown on a terminal line up column by column as the terminal draws
// them: the bold header's escapes and wide letters take no extra columns.
// Run in a real pseudo-terminal, so colour is on exactly as for a person.
func TestTablesAlignOnATerminal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := h.fakeOllama()
	srv.Script(ollamatest.Text("Noted."), ollamatest.Text("Sure."))
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	h.must("", "profile", "set", "user.location", "東京")
	h.must("", "profile", "set", "user.pref.tea", "green, no sugar")
	// An edit made outside agent becomes a second revision.
	if err := os.WriteFile(filepath.Join(h.home, "SOUL.md"), []byte("# Soul\n\nBrief, warm 東京 style.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.must("", "soul", "history")
	h.must("", "chat", "--session", "a", "hello 東京")
	h.must("", "chat", "--session", "longer-session-name", "hi")
	for _, name := range []string{"a-long-job-name", "distill"} {
		if r := h.run("", "jobs", "add", name, "--schedule", "@daily", "--", "log", "東京 note"); r.code != 0 {
			t.Fatal(r)
		}
	}
	for _, text := range []string{"call 東京 office", "water the plants"} {
		if r := h.run("", "remind", text, "--at", "+2h"); r.code != 0 {
			t.Fatal(r)
		}
	}

	for _, args := range [][]string{
		{"profile", "show"},
		{"profile", "history"},
		{"soul", "history"},
		{"sessions", "list"},
		{"reminders"},
		{"jobs"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := h.runPTY(args...)
			if !strings.Contains(out, "\x1b[1m") {
				t.Fatalf("no bold header: colour is off, the test would prove nothing:\n%q", out)
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if len(lines) < 3 {
				t.Fatalf("want a header and two rows at least:\n%s", out)
			}
			want := columnStarts(lines[0])
			for _, l := range lines[1:] {
				got := columnStarts(l)
				for i := 0; i < len(want) && i < len(got); i++ {
					if got[i] != want[i] {
						t.Errorf("column %d starts at %d in %q, at %d in the header %q", i+1, got[i], displayLine(l), want[i], displayLine(lines[0]))
					}
				}
			}
		})
	}
}

// columnStarts gives the display column where each cell of a table line
// begins: after a run of two or more spaces (cells are separated by at
// least two; single spaces sit inside cells).
func columnStarts(line string) []int {
	vis := []rune(displayLine(line))
	starts := []int{0}
	col := 0
	for i := 0; i < len(vis); i++ {
		if vis[i] == ' ' && i+1 < len(vis) && vis[i+1] == ' ' {
			j := i
			for j < len(vis) && vis[j] == ' ' {
				col++
				j++
			}
			starts = append(starts, col)
			i = j - 1
			continue
		}
		col += displayWidth(string(vis[i]))
	}
	return starts
}

// displayLine is the line without its colour escapes.
func displayLine(s string) string { return sgr().ReplaceAllString(s, "") }

// On a terminal, remind says what it set in one line; the one-row table
// that repeated it is printed only for scripts (piped, or --json).
func TestRemindConfirmsOnceOnATerminal(t *testing.T) {
	h := newHarness(t)
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	out := h.runPTY("remind", "call", "mom", "--at", "+1h")
	// (The row would read "pending  call mom"; the notice that nothing
	// runs the tick speaks of a "pending reminder" and is not the table.)
	if !strings.Contains(out, "agent: reminder 1 set for ") || strings.Contains(out, "STATUS") || regexp.MustCompile(`pending\s+call mom`).MatchString(out) {
		t.Errorf("remind on a terminal shows:\n%s", out)
	}
	if r := h.run("", "remind", "call", "dad", "--at", "+1h"); r.code != 0 || !strings.HasPrefix(r.stdout, "2\t") {
		t.Errorf("piped remind: %s", r)
	}
}
