package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// runTTY runs the real command line with buffers for streams, telling the
// commands stdout is a terminal (the transcripts cover the piped output).
func runTTY(t *testing.T, color bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	streams := &iostreams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: true, Color: color}
	code = run(context.Background(), append([]string{"agent"}, args...), streams)
	return code, out.String(), errb.String()
}

func ttyWorkspace(t *testing.T, setup ...[]string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "ws")
	for _, args := range append([][]string{{"init"}}, setup...) {
		if code, _, stderr := runTTY(t, false, append([]string{"--home", home, "--quiet"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	return home
}

func TestProfileShowOnATerminal(t *testing.T) {
	home := ttyWorkspace(t)
	code, stdout, stderr := runTTY(t, false, "--home", home, "profile", "show")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "no profile records yet") {
		t.Fatalf("empty profile: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	home = ttyWorkspace(t, []string{"profile", "set", "user.name", "Igor"}, []string{"profile", "set", "agent.role", "research assistant"})
	code, stdout, stderr = runTTY(t, false, "--home", home, "profile", "show")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows, got %q", stdout)
	}
	// Aligned: every row's value starts in the header's VALUE column.
	col := strings.Index(lines[0], "VALUE")
	if !strings.HasPrefix(lines[0], "KEY ") || col < 0 {
		t.Fatalf("header = %q", lines[0])
	}
	for i, want := range []string{"research assistant", "Igor"} {
		if got := lines[i+1][col:]; !strings.HasPrefix(got, want+" ") {
			t.Errorf("row %d = %q, want %q at column %d", i+1, lines[i+1], want, col)
		}
	}
	if strings.Contains(stdout, "\x1b[") {
		t.Errorf("colour without Color: %q", stdout)
	}
	_, stdout, _ = runTTY(t, true, "--home", home, "profile", "show")
	if !strings.HasPrefix(stdout, "\x1b[1mKEY\x1b[0m") {
		t.Errorf("colour header missing: %q", stdout)
	}
}

func TestProfileHistoryOnATerminal(t *testing.T) {
	home := ttyWorkspace(t,
		[]string{"profile", "set", "user.name", "Igor"},
		[]string{"profile", "unset", "user.name"})
	code, stdout, stderr := runTTY(t, false, "--home", home, "profile", "history")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"ID", "CHANGE", `(unset) → "Igor"`, `"Igor" → (unset)`, "profile unset"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("history table lacks %q:\n%s", want, stdout)
		}
	}
}

func TestProfileProposalsOnATerminal(t *testing.T) {
	home := ttyWorkspace(t)
	code, stdout, stderr := runTTY(t, false, "--home", home, "profile", "proposals")
	if code != 0 || stdout != "" || stderr != "agent: no proposals\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
