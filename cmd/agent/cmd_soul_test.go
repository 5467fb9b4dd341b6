package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSoulHistoryOnATerminal(t *testing.T) {
	home := ttyWorkspace(t)
	if err := os.WriteFile(filepath.Join(home, "SOUL.md"), []byte("# Soul\n\nNew me.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runTTY(t, false, "--home", home, "soul", "history")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "REV ") ||
		!strings.HasPrefix(lines[1], "2 ") || !strings.HasSuffix(lines[1], "user    edited outside agent") ||
		!strings.HasSuffix(lines[2], "user    initial") {
		t.Fatalf("history table:\n%s", stdout)
	}
}

func TestSoulDiffColour(t *testing.T) {
	home := ttyWorkspace(t)
	if err := os.WriteFile(filepath.Join(home, "SOUL.md"), []byte("# Soul\n\nNew me.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, plain, _ := runTTY(t, false, "--home", home, "soul", "diff")
	code, coloured, stderr := runTTY(t, true, "--home", home, "soul", "diff")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(plain, "\x1b[") || !strings.Contains(plain, "\n+New me.\n") {
		t.Fatalf("plain diff:\n%s", plain)
	}
	for _, want := range []string{"\x1b[1m--- SOUL.md@1\x1b[0m\n", "\x1b[32m+New me.\x1b[0m\n", "\x1b[31m-I am a personal assistant"} {
		if !strings.Contains(coloured, want) {
			t.Errorf("coloured diff lacks %q:\n%q", want, coloured)
		}
	}
	// Stripping the colour gives back the plain diff, byte for byte.
	stripped := coloured
	for _, c := range []string{"\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[0m"} {
		stripped = strings.ReplaceAll(stripped, c, "")
	}
	if stripped != plain {
		t.Fatalf("coloured diff differs from the plain one beyond colour:\n%s\nvs\n%s", stripped, plain)
	}
}
