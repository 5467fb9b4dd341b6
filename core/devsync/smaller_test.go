package devsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Item 8: init --from makes the workspace its owner's only (0700, files
// 0600), and a merge never widens a file's mode (git writes by the umask).
func TestCloneAndMergeAreOwnerOnly(t *testing.T) {
	a, b, _ := twoDevices(t)
	mode := func(p string) os.FileMode {
		t.Helper()
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	for _, p := range []string{b, filepath.Join(b, ".git"), filepath.Join(b, "logs")} {
		if m := mode(p); m != 0o700 {
			t.Errorf("%s: mode %o, want 700", p, m)
		}
	}
	for _, rel := range []string{"MEMORY.md", "SOUL.md", "logs/2026-11-27.md", ".gitignore"} {
		if m := mode(filepath.Join(b, rel)); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", rel, m)
		}
	}
	write(t, a, "MEMORY.md", read(t, a, "MEMORY.md")+"- a new fact\n")
	write(t, a, "digests/2026-11.md", "# November\n")
	sync(t, a)
	sync(t, b)
	for _, rel := range []string{"MEMORY.md", "digests/2026-11.md"} {
		if m := mode(filepath.Join(b, rel)); m&0o077 != 0 {
			t.Errorf("%s after the merge: mode %o", rel, m)
		}
	}
}

// Item 8: an init --from that failed (here: the remote holds state.db)
// leaves nothing behind, and succeeds once the remote is right.
func TestFailedCloneCanBeRetried(t *testing.T) {
	_, _, remote := twoDevices(t)
	x := attacker(t, remote)
	write(t, x, "state.db", "planted")
	gitIn(t, x, "add", "-f", "state.db")
	gitIn(t, x, "commit", "-qm", "plant")
	push(t, x)
	parent := t.TempDir()
	c := filepath.Join(parent, "third")
	err := Clone(context.Background(), remote, testOptions(c, ""))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "state.db") {
		t.Fatalf("clone of a remote holding state.db: %v", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Fatalf("the failed clone left %v", left)
	}
	gitIn(t, x, "rm", "-q", "--cached", "state.db")
	gitIn(t, x, "commit", "-qm", "unplant")
	push(t, x)
	if err := Clone(context.Background(), remote, testOptions(c, "")); err != nil {
		t.Fatalf("the second try: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c, "state.db")); err == nil {
		t.Error("state.db came with the clone")
	}
	if !strings.Contains(read(t, c, "MEMORY.md"), "likes tea") {
		t.Error("the clone has not the files")
	}
}

// Item 8: a --remote that fails is not remembered, and its credentials
// are in no message.
func TestFailedRemoteIsNotSavedNorItsPassword(t *testing.T) {
	a, _, remote := twoDevices(t)
	bad := "http://me:hunter2@127.0.0.1:9/agent.git"
	_, err := Sync(context.Background(), testOptions(a, bad))
	if err == nil {
		t.Fatal("a sync with an unreachable remote worked")
	}
	if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "me:xxxxx@127.0.0.1") {
		t.Errorf("the error: %v", err)
	}
	if got := strings.TrimSpace(gitIn(t, a, "remote", "get-url", "origin")); got != remote {
		t.Errorf("origin is %s after the failed --remote", got)
	}
	fresh := t.TempDir()
	write(t, fresh, "MEMORY.md", "# Memory\n")
	if _, err := Sync(context.Background(), testOptions(fresh, bad)); err == nil {
		t.Fatal("a first sync with an unreachable remote worked")
	}
	if g(t, fresh, "remote", "get-url", "origin") {
		t.Error("the failed remote was saved as origin")
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://me:hunter2@host/x.git": "https://me:xxxxx@host/x.git",
		"https://ghp_TOKEN@host/x.git":  "https://xxxxx@host/x.git",
		"ssh://git@host/x.git":          "ssh://git@host/x.git",
		"git@github.com:me/agent.git":   "git@github.com:me/agent.git",
		"/media/usb/agent.git":          "/media/usb/agent.git",
		"https://host/x.git":            "https://host/x.git",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// Item 1: LocalOnly is the program's list, whatever the case of a name.
func TestLocalOnly(t *testing.T) {
	for rel, want := range map[string]bool{
		"state.db": true, "state.db-wal": true, "STATE.DB": true, "index.db": true, "mcp.json": true,
		".chat_history": true, ".sync.lock": true, ".memory.lock": true, ".remote-ollama": true,
		".git/hooks/pre-commit": true, "logs/.git/config": true, ".mcp-logs/x.log": true,
		"MEMORY.md": false, "logs/2026-11-27.md": false, "sync/journal/abc.jsonl": false,
		"skills/x/mcp.json": false, "notes/state.db.md": false,
	} {
		if got := LocalOnly(rel); got != want {
			t.Errorf("LocalOnly(%q) = %v", rel, got)
		}
	}
}

// A --remote whose fetch works but whose push is refused (here a checked
// out branch of a work tree, which git refuses to update) is not saved
// either: the sync fails, says so, and origin is still the old remote.
func TestRemoteRefusingThePushIsNotSaved(t *testing.T) {
	a, _, remote := twoDevices(t)
	other := filepath.Join(t.TempDir(), "worktree")
	gitIn(t, filepath.Dir(other), "clone", "-q", remote, other)
	branch := strings.TrimSpace(gitIn(t, a, "symbolic-ref", "--short", "HEAD"))
	gitIn(t, other, "checkout", "-q", branch)
	write(t, a, "logs/2026-11-28.md", "# 2026-11-28\n\n### 09:00\n\nto push\n")
	_, err := Sync(context.Background(), testOptions(a, other))
	if err == nil {
		t.Fatal("a sync whose push was refused worked")
	}
	if !strings.Contains(err.Error(), "the remote is not changed") {
		t.Errorf("the error does not say the remote is kept: %v", err)
	}
	if got := strings.TrimSpace(gitIn(t, a, "remote", "get-url", "origin")); got != remote {
		t.Errorf("origin is %s after a --remote whose push was refused", got)
	}
}
