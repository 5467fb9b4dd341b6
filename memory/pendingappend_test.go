package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A writer killed mid-append (simulated: its pending-append record in place, half its
// bytes in the log) is finished by the next writer before anything else,
// so the note is whole and the log append-only.
func TestTornAppendIsRolledForward(t *testing.T) {
	home := t.TempDir()
	day := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	if _, err := AppendLog(home, day, "first note"); err != nil {
		t.Fatal(err)
	}
	rel := "logs/2026-11-20.md"
	path := filepath.Join(home, rel)
	before, _ := os.ReadFile(path)
	note := "\n### 09:31\n\n" + strings.Repeat("a long line of the torn note\n", 400)
	if err := writePendingAppend(home, rel, int64(len(before)), []byte(note)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(before, note[:5000]...), 0o600); err != nil { // the kill landed here
		t.Fatal(err)
	}
	if _, err := AppendLog(home, day.Add(time.Minute), "after the crash"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), string(before)+note) || !strings.Contains(string(got[len(before)+len(note):]), "after the crash") {
		t.Fatalf("the torn note was not finished before the next one:\n%s", clip(string(got)))
	}
	if _, err := os.Stat(filepath.Join(home, PendingAppendFile)); !os.IsNotExist(err) {
		t.Errorf("pending-append record left behind: %v", err)
	}
}

// What follows the recorded offset but is not the record's own bytes (an
// editor wrote there since) is left alone, and so is a note that landed whole.
func TestJournalLeavesOthersBytesAlone(t *testing.T) {
	home := t.TempDir()
	day := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	if _, err := AppendLog(home, day, "first note"); err != nil {
		t.Fatal(err)
	}
	rel := "logs/2026-11-20.md"
	path := filepath.Join(home, rel)
	before, _ := os.ReadFile(path)
	note := strings.Repeat("our note\n", 1000)
	for _, tail := range []string{"the user's own words\n", note} {
		if err := writePendingAppend(home, rel, int64(len(before)), []byte(note)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(append([]byte(nil), before...), tail...), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := AppendLog(home, day, "next"); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if !strings.HasPrefix(string(got), string(before)+tail) || strings.Count(string(got), "our note\n") != strings.Count(tail, "our note\n") {
			t.Fatalf("tail %q…: the file was changed beyond the new note:\n%s", clip(tail), clip(string(got)))
		}
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}
