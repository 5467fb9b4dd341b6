package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A notes folder's file name and text reach the terminal shown, never
// acted on: `memory search` on a terminal escapes an escape sequence or a
// newline in them (the tab-separated and JSON outputs already did).
func TestSearchOnTerminalEscapesNotesFolder(t *testing.T) {
	home := filepath.Join(t.TempDir(), "ws")
	vault := t.TempDir()
	name := "evil\x1b]0;pwned\x07\nname.md"
	if err := os.WriteFile(filepath.Join(vault, name), []byte("# Kingfisher\x1b[2J\n\nThe kingfisher\x1b[31m came back.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init"}, {"memory", "sources", "add", "vault", vault}} {
		if code, _, stderr := runDoctorCmd(t, false, append([]string{"--home", home}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	t.Setenv("NO_COLOR", "1") // plain: the escapes looked for are the note's own
	code, stdout, stderr := runDoctorCmd(t, true, "--home", home, "memory", "search", "kingfisher")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "\x1b]") || strings.Contains(stdout, "\x1b[2J") || strings.Contains(stdout, "\x1b[31m") || strings.Contains(stdout, "\x07") {
		t.Errorf("a control sequence reached the terminal: %q", stdout)
	}
	if !strings.Contains(stdout, `vault:evil\u001b]0;pwned\u0007\u000aname.md:1-3`) {
		t.Errorf("the name is not shown escaped on one line: %q", stdout)
	}
}
