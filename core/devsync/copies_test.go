package devsync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestUnchangedFolderNotListedAgain: a folder listed without a copy in it
// is not listed again while its stamp (device, inode, modification time)
// stays the same — a year of logs is ten thousand names each command would
// read — and is listed as soon as an entry added changes the stamp. The
// copy put back under the old stamp shows the listing was skipped.
func TestUnchangedFolderNotListedAgain(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache) // macOS: ~/Library/Caches
	home := t.TempDir()
	write(t, home, "logs/2026-11-27.md", "# 2026-11-27\n\n### 08:00\n\nbreakfast\n")
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{home, filepath.Join(home, "logs")} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if folded, err := FoldCopies(home); err != nil || len(folded) != 0 {
		t.Fatalf("folded %+v, %v; want nothing", folded, err)
	}
	if b, err := os.ReadFile(seenFile(home)); err != nil || !strings.Contains(string(b), "logs\t") {
		t.Fatalf("stamps remembered: %q, %v", b, err)
	}
	write(t, home, "logs/2026-11-27.sync-conflict-20261127-101500-ABCDEF1.md", "# 2026-11-27\n\n### 09:00\n\nlaptop at nine\n")
	logs := filepath.Join(home, "logs")
	if err := os.Chtimes(logs, old, old); err != nil {
		t.Fatal(err)
	}
	if folded, _ := FoldCopies(home); len(folded) != 0 {
		t.Fatalf("folded %+v under a remembered stamp: the folder was listed again", folded)
	}
	now := time.Now()
	if err := os.Chtimes(logs, now, now); err != nil {
		t.Fatal(err)
	}
	if folded, err := FoldCopies(home); err != nil || len(folded) != 1 {
		t.Fatalf("folded %+v, %v after the folder changed; want the copy", folded, err)
	}
}

// TestACopyOfStateDBIsSaid: a file-sync tool that shares state.db leaves
// copies of it; they are not merged (a database is not text) but said, with
// how to stop it, at every command until the user acts.
func TestACopyOfStateDBIsSaid(t *testing.T) {
	home := t.TempDir()
	write(t, home, "state.db", "db")
	write(t, home, "state.sync-conflict-20261127-101500-ABCDEF1.db", "other db")
	folded, err := FoldCopies(home)
	if len(folded) != 0 || err == nil || !strings.Contains(err.Error(), "exclude state.db* and index.db*") {
		t.Fatalf("folded %+v, err %v; want the copy said, not folded", folded, err)
	}
	if _, err := os.Stat(filepath.Join(home, "state.sync-conflict-20261127-101500-ABCDEF1.db")); err != nil {
		t.Fatalf("the copy was touched: %v", err)
	}
}

// TestWorkspaceTopChurnNotRemembered: every command changes the top
// folder's stamp (SQLite makes and removes state.db-wal and -shm there), so
// a stamp remembered for it never matched the next command's and each
// command rewrote the cache file (temp, fsync, rename) to no end. The top
// folder is listed every time instead; the seen file stays as it was.
func TestWorkspaceTopChurnNotRemembered(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache) // macOS: ~/Library/Caches
	home := t.TempDir()
	write(t, home, "logs/2026-11-27.md", "# 2026-11-27\n\n### 08:00\n\nbreakfast\n")
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{home, filepath.Join(home, "logs")} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := FoldCopies(home); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(seenFile(home))
	if err != nil {
		t.Fatal(err)
	}
	// A command's run: state.db-wal made and removed, the top folder's
	// time moved (kept in the past: settled).
	write(t, home, "state.db-wal", "")
	if err := os.Remove(filepath.Join(home, "state.db-wal")); err != nil {
		t.Fatal(err)
	}
	later := old.Add(time.Minute)
	if err := os.Chtimes(home, later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := FoldCopies(home); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(seenFile(home)); string(after) != string(before) {
		t.Errorf("seen file rewritten after the top folder's churn:\n%q\nwas\n%q", after, before)
	}
}

// Item 7: only the exact patterns the tools write are conflict copies.
// MEMORY-OLD.md, SOUL-BACKUP.md, logs/DATE-TODO.md, a Syncthing-like name
// without its device, and an iCloud-like "DATE 2.md" older than its
// original or without one stay the user's files, untouched; the same
// iCloud name newer than its original is merged.
func TestUsersFilesAreNotCopies(t *testing.T) {
	home := t.TempDir()
	mem := "# Memory\n\n- likes tea\n"
	write(t, home, "MEMORY.md", mem)
	write(t, home, "SOUL.md", "# Soul\n")
	write(t, home, "logs/2026-11-27.md", "# 2026-11-27\n\n### 08:00\n\nbreakfast\n")
	mine := map[string]string{
		"MEMORY-OLD.md":           "# Memory\n\n- an old fact\n",
		"SOUL-BACKUP.md":          "# Soul\n\nold soul\n",
		"logs/2026-11-28-TODO.md": "- call the plumber\n",
		"logs/2026-11-28 2.md":    "# a second page, no original\n",
		"logs/2026-11-27 2.md":    "# 2026-11-27\n\n### 07:00\n\nolder than the log\n",
		"logs/2026-11-27.sync-conflict-20261127-101500.md": "# 2026-11-27\n\n### 06:00\n\nno device id\n",
	}
	for rel, body := range mine {
		write(t, home, rel, body)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(home, "logs", "2026-11-27 2.md"), old, old); err != nil {
		t.Fatal(err)
	}
	folded, err := FoldCopies(home)
	if err != nil || len(folded) != 0 {
		t.Fatalf("folded %+v, %v", folded, err)
	}
	for rel, body := range mine {
		if got := read(t, home, rel); got != body {
			t.Errorf("%s changed: %q", rel, got)
		}
	}
	if read(t, home, "MEMORY.md") != mem {
		t.Error("MEMORY.md changed")
	}

	// An iCloud copy newer than its original is one.
	write(t, home, "MEMORY 2.md", "# Memory\n\n- likes tea\n- from the other device\n")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(home, "MEMORY 2.md"), later, later); err != nil {
		t.Fatal(err)
	}
	folded, err = FoldCopies(home)
	if err != nil || len(folded) != 1 || !strings.Contains(read(t, home, "MEMORY.md"), "from the other device") {
		t.Errorf("an iCloud copy newer than MEMORY.md: %+v, %v", folded, err)
	}
}

// The tests never write the user's cache: the stamps a test's FoldCopies
// remembers go under the test binary's own home (testhome, TestMain).
func TestTheStampsOfATestStayInItsOwnHome(t *testing.T) {
	p := seenFile(t.TempDir())
	if p == "" || !strings.Contains(p, string(filepath.Separator)+"agent-test-home-") {
		t.Errorf("a test remembers its stamps in %q, not under a home of its own", p)
	}
}
