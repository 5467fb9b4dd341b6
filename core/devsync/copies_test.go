package devsync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Syncthing saw both devices change today's log and MEMORY.md: it kept one
// version and left the other beside it. The next command merges the copy
// in, every entry and line of both kept, and removes it.
func TestSyncthingConflictCopyMerged(t *testing.T) {
	home := t.TempDir()
	write(t, home, "logs/2026-11-27.md", "# 2026-11-27\n\n### 08:00\n\nbreakfast\n\n### 10:00\n\ndesktop at ten\n")
	write(t, home, "logs/2026-11-27.sync-conflict-20261127-101500-ABCDEF1.md", "# 2026-11-27\n\n### 08:00\n\nbreakfast\n\n### 09:00\n\nlaptop at nine\n")
	write(t, home, "MEMORY.md", "# Memory\n\n## User Facts\n\n- likes tea\n- has a dog\n")
	write(t, home, "MEMORY.sync-conflict-20261127-101500-ABCDEF1.md", "# Memory\n\n## User Facts\n\n- likes tea\n- has a cat\n\n## Travel\n\n- Japan\n")
	write(t, home, "logs/Chapter 2.md", "a note, not a copy")

	folded, err := FoldCopies(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(folded) != 2 {
		t.Errorf("folded %+v, want the log and MEMORY.md", folded)
	}
	log := read(t, home, "logs/2026-11-27.md")
	want := "# 2026-11-27\n\n### 08:00\n\nbreakfast\n\n### 09:00\n\nlaptop at nine\n\n### 10:00\n\ndesktop at ten\n"
	if log != want {
		t.Errorf("log:\n%s\nwant:\n%s", log, want)
	}
	mem := read(t, home, "MEMORY.md")
	for _, s := range []string{"- likes tea", "- has a dog", "- has a cat", "## Travel", "- Japan"} {
		if strings.Count(mem, s) != 1 {
			t.Errorf("MEMORY.md holds %q %d times:\n%s", s, strings.Count(mem, s), mem)
		}
	}
	left, _ := filepath.Glob(filepath.Join(home, "*sync-conflict*"))
	more, _ := filepath.Glob(filepath.Join(home, "logs", "*sync-conflict*"))
	if len(left)+len(more) != 0 {
		t.Errorf("copies left: %q %q", left, more)
	}
	if _, err := os.Stat(filepath.Join(home, "logs", "Chapter 2.md")); err != nil {
		t.Errorf("a note that only looks like a copy: %v", err)
	}
	// Nothing left to do: the second run merges nothing.
	if folded, err := FoldCopies(home); err != nil || len(folded) != 0 {
		t.Errorf("second run: %+v, %v", folded, err)
	}
}
