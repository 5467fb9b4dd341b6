package memory

import "testing"

func TestConflictCopyOf(t *testing.T) {
	for _, c := range []struct{ name, orig string }{
		{"2026-11-27.sync-conflict-20261127-101500-ABCDEF1.md", "2026-11-27.md"},
		{"MEMORY.sync-conflict-20261127-101500-ABCDEF1.md", "MEMORY.md"},
		{"notes.sync-conflict-20261127-101500.md", ""}, // no device: not Syncthing's
		{"laptop.sync-conflict-20261127-101500-ABCDEF1.jsonl", "laptop.jsonl"},
		{"MEMORY (Ann's conflicted copy 2026-11-27).md", "MEMORY.md"},
		{"2026-11-27 (Laptop's conflicted copy 2026-11-27 1).md", "2026-11-27.md"},
		{"2026-11-27 (Laptop's conflicted copy).md", ""}, // no date: not Dropbox's
		{"2026-11-27 2.md", "2026-11-27.md"},
		{"MEMORY 3.md", "MEMORY.md"},
		{"desk-1 2.jsonl", "desk-1.jsonl"},
		// Names a person chooses are notes, not copies.
		{"2026-11-27-DESKTOP-AB12CD.md", ""},
		{"SOUL-LAPTOP.md", ""},
		{"MEMORY-OLD.md", ""},
		{"SOUL-BACKUP.md", ""},
		{"2026-11-28-TODO.md", ""},
		{"Chapter 2.md", ""},
		{"2026-11-27-trip.md", ""},
		{"2026-11-27.md", ""},
		{"MEMORY.md", ""},
		{"sync-conflict.md", ""},
	} {
		orig, ok := ConflictCopyOf(c.name)
		if ok != (c.orig != "") || orig != c.orig {
			t.Errorf("ConflictCopyOf(%q) = %q, %v; want %q", c.name, orig, ok, c.orig)
		}
	}
}

// Only Syncthing's and Dropbox's exact forms are sure; an iCloud-like name
// needs the original and the times (devsync).
func TestExactConflictCopy(t *testing.T) {
	for name, want := range map[string]bool{
		"MEMORY.sync-conflict-20261127-101500-ABCDEF1.md": true,
		"MEMORY (Ann's conflicted copy 2026-11-27).md":    true,
		"2026-11-27 2.md": false,
		"MEMORY 3.md":     false,
		"2026-11-27.md":   false,
		"MEMORY.sync-conflict-20261127-101500-ABCDEF1.txt": true,
	} {
		if got := ExactConflictCopy(name); got != want {
			t.Errorf("ExactConflictCopy(%q) = %v", name, got)
		}
	}
}
