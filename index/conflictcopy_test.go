package index

import (
	"slices"
	"strings"
	"testing"

	"agent/memory"
)

// A file-sync tool's conflict copy of a log is not a note of its own:
// indexed, every hit in it would show twice. A note whose name only looks
// like one (a person's "Chapter 2.md") still is.
func TestConflictCopiesAreNotNotes(t *testing.T) {
	home := t.TempDir()
	for _, rel := range []string{
		"logs/2026-11-20.md",
		"logs/2026-11-20.sync-conflict-20261120-101500-ABCDEF1.md",
		"logs/2026-11-20 (Laptop's conflicted copy 2026-11-20).md",
		"logs/2026-11-20 2.md",
		"logs/2026-11-20-DESKTOP.md",
		"logs/Chapter 2.md",
	} {
		write(t, home, rel, "# a\n\n### 09:00\n\nsame words\n")
	}
	notes, err := Notes(home)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, n := range notes {
		rels = append(rels, n.Rel)
	}
	slices.Sort(rels)
	// 2026-11-20-DESKTOP.md is a note: OneDrive's form is no longer taken
	// for a copy (it is a name people choose: MEMORY-OLD.md).
	if want := []string{"logs/2026-11-20-DESKTOP.md", "logs/2026-11-20.md", "logs/Chapter 2.md"}; !slices.Equal(rels, want) {
		t.Errorf("notes = %q, want %q", rels, want)
	}
}

// TestOrdinaryNamesCostNoAllocation: every walk sees every log's name, so
// the conflict-copy screen must pass an ordinary one without allocating,
// and still see a copy (no capital, no space: Syncthing's with a device of digits).
func TestOrdinaryNamesCostNoAllocation(t *testing.T) {
	name := []byte("2026-11-27.md")
	if n := testing.AllocsPerRun(100, func() { isConflictCopy(name) }); n != 0 {
		t.Fatalf("%v allocations for an ordinary name", n)
	}
	if isConflictCopy(name) || !isConflictCopy([]byte("2026-11-27.sync-conflict-20261127-101500-1234567.md")) {
		t.Fatal("screen: an ordinary name taken for a copy, or a copy passed over")
	}
}

// In a source folder nothing merges a copy into its original (devsync
// folds only the workspace's own files), so every note there is the
// user's and is indexed, whatever its name: "2026-11-27-NYC.md" is a trip,
// and a sync tool's copy holds words found nowhere else.
func TestSourceNotesWithCopyNamesAreNotes(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	vault := t.TempDir()
	names := []string{"2026-11-27-NYC.md", "2026-11-27 2.md", "MEMORY-V2.md", "plan.sync-conflict-20261127-101500-ABCDEF1.md"}
	for _, n := range names {
		write(t, vault, n, "# a\n\nwords\n")
	}
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		t.Fatal(err)
	}
	notes, err := Notes(home)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, n := range notes {
		if strings.HasPrefix(n.Rel, "vault:") {
			rels = append(rels, strings.TrimPrefix(n.Rel, "vault:"))
		}
	}
	slices.Sort(rels)
	slices.Sort(names)
	if !slices.Equal(rels, names) {
		t.Errorf("source notes = %q, want %q", rels, names)
	}
	checkDigestAgrees(t, home)
}
