package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ctrl-C while forget looks through the files (it shows a progress line on
// a terminal) says what was kept ("nothing was forgotten; run it again"),
// exits 130 and changes nothing; run again, it forgets. Before, there was
// no progress line and no way to tell an interrupted forget from a failed
// one.
func TestCtrlCDuringForget(t *testing.T) {
	const phrase = "Zk4LanternNews"
	home := ttyWorkspace(t, []string{"log", "the news is " + phrase + " for now"})
	for i := range 5 { // files enough to stop between two
		if err := os.WriteFile(filepath.Join(home, "note"+string(rune('a'+i))+".md"), []byte("nothing here\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOnWrite{when: "agent: looking in files 0/", cancel: cancel}
	t.Setenv("TERM", "xterm")
	code := run(ctx, []string{"agent", "--home", home, "forget", "--yes", phrase},
		&iostreams{In: strings.NewReader(""), Out: &strings.Builder{}, Err: errw, ErrTTY: true})
	stderr := errw.buf.String()
	if code != exitInterrupted || !strings.Contains(stderr, "agent: interrupted: nothing was forgotten; run it again\n") ||
		strings.Contains(stderr, "context canceled") {
		t.Fatalf("exit %d, stderr %q; want exit 130 and what was kept", code, stderr)
	}
	if !logsHold(t, home, phrase) {
		t.Fatal("an interrupted forget changed the log")
	}
	if code, _, stderr := runPiped(t, "--home", home, "forget", "--yes", phrase); code != 0 || !strings.Contains(stderr, "done: 1 file rewritten") {
		t.Fatalf("run again: exit %d, stderr %q", code, stderr)
	}
	if logsHold(t, home, phrase) {
		t.Error("run again, the phrase is still in the log")
	}
}

// logsHold reports whether any of home's logs holds s.
func logsHold(t *testing.T, home, s string) bool {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "*.md"))
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
