package memory

import "testing"

func TestConflictCopyOf(t *testing.T) {
	for _, c := range []struct{ name, orig string }{
		{"2026-11-27.sync-conflict-20261127-101500-ABCDEF1.md", "2026-11-27.md"},
		{"MEMORY.sync-conflict-20261127-101500-ABCDEF1.md", "MEMORY.md"},
		{"notes.sync-conflict-20261127-101500.md", "notes.md"},
		{"laptop.sync-conflict-20261127-101500-ABCDEF1.jsonl", "laptop.jsonl"},
		{"MEMORY (Ann's conflicted copy 2026-11-27).md", "MEMORY.md"},
		{"2026-11-27 (Laptop's conflicted copy).md", "2026-11-27.md"},
		{"2026-11-27 2.md", "2026-11-27.md"},
		{"MEMORY 3.md", "MEMORY.md"},
		{"desk-1 2.jsonl", "desk-1.jsonl"},
		{"2026-11-27-DESKTOP-AB12CD.md", "2026-11-27.md"},
		{"SOUL-LAPTOP.md", "SOUL.md"},
		// Names a person chooses are notes, not copies.
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
