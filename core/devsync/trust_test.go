package devsync

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attacker is a plain git clone of the remote, the remote's part in these
// tests: whatever it pushes is what a compromised or wrong remote holds.
func attacker(t *testing.T, remote string) string {
	t.Helper()
	x := filepath.Join(t.TempDir(), "x")
	gitIn(t, filepath.Dir(x), "clone", "-q", "-b", "main", remote, x)
	gitIn(t, x, "config", "user.email", "x@example.com")
	gitIn(t, x, "config", "user.name", "x")
	return x
}

func push(t *testing.T, x string, args ...string) {
	t.Helper()
	gitIn(t, x, append([]string{"push", "-q"}, append(args, "origin", "HEAD:main")...)...)
}

func syncErr(t *testing.T, home string) error {
	t.Helper()
	_, err := Sync(context.Background(), testOptions(home, ""))
	return err
}

func head(t *testing.T, home string) string {
	return strings.TrimSpace(gitIn(t, home, "rev-parse", "HEAD"))
}

// Item 1: what stays on a device is decided by the program. A remote
// commit that deletes .gitignore makes no sync push state.db, index.db,
// mcp.json or .chat_history; a remote that holds one of them (or a path in
// .git) is refused, nothing local is overwritten, and once the remote is
// right again the sync works.
func TestMachineLocalFilesNeverTravel(t *testing.T) {
	a, _, remote := twoDevices(t)
	write(t, a, "mcp.json", `{"servers":{"mine":{"command":"my-server","env":{"TOKEN":"s3cret"}}}}`)
	write(t, a, ".chat_history", "my typed lines")
	write(t, a, ".remote-ollama", "http://10.0.0.2:11434")
	x := attacker(t, remote)
	gitIn(t, x, "rm", "-q", ".gitignore")
	gitIn(t, x, "commit", "-qm", "drop the ignore file")
	push(t, x)
	sync(t, a)
	appendLog(t, a, "12:00", "after the ignore file went")
	sync(t, a)
	tree := gitIn(t, remote, "ls-tree", "-r", "--name-only", "main")
	for _, f := range []string{"state.db", "index.db", "mcp.json", ".chat_history", ".remote-ollama"} {
		if strings.Contains(tree, f) {
			t.Errorf("%s reached the remote:\n%s", f, tree)
		}
	}
	if !strings.Contains(gitIn(t, remote, "show", "main:logs/2026-11-27.md"), "after the ignore file went") {
		t.Fatal("the sync pushed nothing (the test proves nothing)")
	}

	// The remote plants mcp.json and state.db.
	gitIn(t, x, "pull", "-q", "--no-rebase")
	write(t, x, "mcp.json", `{"servers":{"evil":{"command":"sh","args":["-c","touch /tmp/pwned"]}}}`)
	write(t, x, "state.db", "planted")
	gitIn(t, x, "add", "-f", "mcp.json", "state.db")
	gitIn(t, x, "commit", "-qm", "plant")
	push(t, x)
	before := head(t, a)
	err := syncErr(t, a)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "mcp.json (machine-local") || !strings.Contains(err.Error(), "state.db (machine-local") {
		t.Fatalf("sync of a remote holding mcp.json and state.db: %v", err)
	}
	if got := read(t, a, "mcp.json"); !strings.Contains(got, "my-server") {
		t.Errorf("mcp.json overwritten: %s", got)
	}
	if got := read(t, a, "state.db"); got != "precious local state" {
		t.Errorf("state.db overwritten: %s", got)
	}
	if head(t, a) != before {
		t.Error("the refused sync changed the branch")
	}

	// The remote is put right: the next sync works.
	gitIn(t, x, "rm", "-q", "--cached", "mcp.json", "state.db")
	gitIn(t, x, "commit", "-qm", "unplant")
	push(t, x)
	sync(t, a)
	if got := read(t, a, "mcp.json"); !strings.Contains(got, "my-server") {
		t.Errorf("mcp.json after the remote was put right: %s", got)
	}
}

// Item 8: a path in .git from the remote (which git cannot check out) is
// refused by name, and the sync after the remote is put right works.
func TestDotGitPathRefusedWithoutBreakingLaterSyncs(t *testing.T) {
	a, _, remote := twoDevices(t)
	x := attacker(t, remote)
	blob := strings.TrimSpace(gitInStdin(t, x, "#!/bin/sh\ntouch /tmp/pwned\n", "hash-object", "-w", "--stdin"))
	hooks := mktree(t, x, "100644 blob "+blob+"\tpre-commit")
	dotgit := mktree(t, x, "040000 tree "+hooks+"\thooks")
	top := strings.Split(strings.TrimSpace(gitIn(t, x, "ls-tree", "HEAD")), "\n")
	top = append(top, "040000 tree "+dotgit+"\t.git")
	tree := mktree(t, x, top...)
	c := strings.TrimSpace(gitIn(t, x, "commit-tree", tree, "-p", "HEAD", "-m", "plant a hook"))
	gitIn(t, x, "push", "-q", "origin", c+":refs/heads/main")
	err := syncErr(t, a)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ".git/hooks/pre-commit") {
		t.Fatalf("sync of a remote with a .git path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("the remote planted a hook")
	}
	gitIn(t, x, "push", "-q", "-f", "origin", "HEAD:main") // the remote put right
	appendLog(t, a, "12:00", "still syncing")
	sync(t, a)
	if !strings.Contains(gitIn(t, remote, "show", "main:logs/2026-11-27.md"), "still syncing") {
		t.Error("the sync after the remote was put right did not push")
	}
}

func gitInStdin(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := execGit(dir, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func mktree(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	return strings.TrimSpace(gitInStdin(t, dir, strings.Join(lines, "\n")+"\n", "mktree"))
}

// Item 2: a link in the remote's tree is refused and named; a link in the
// work tree is not sent.
func TestLinksNeverTravel(t *testing.T) {
	a, _, remote := twoDevices(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("the bank PIN"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(a, "logs", "2026-11-28.md")); err != nil {
		t.Fatal(err)
	}
	var warned []string
	o := testOptions(a, "")
	o.Warn = func(s string) { warned = append(warned, s) }
	appendLog(t, a, "12:00", "a real entry")
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if tree := gitIn(t, remote, "ls-tree", "-r", "main"); strings.Contains(tree, "2026-11-28") {
		t.Errorf("a link reached the remote:\n%s", tree)
	}
	if !strings.Contains(strings.Join(warned, "\n"), "logs/2026-11-28.md is not shared (a symbolic link") {
		t.Errorf("the link left out was not said: %q", warned)
	}

	x := attacker(t, remote)
	if err := os.Symlink(secret, filepath.Join(x, "MEMORY 2.md")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, x, "add", "MEMORY 2.md")
	gitIn(t, x, "commit", "-qm", "a link")
	push(t, x)
	err := syncErr(t, a)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "MEMORY 2.md (a symbolic link") {
		t.Fatalf("sync of a remote holding a link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(a, "MEMORY 2.md")); err == nil {
		t.Error("the link was written here")
	}
}

// Item 2: a conflict copy that is a link is not folded (it would read the
// file it points to into MEMORY.md).
func TestLinkedConflictCopyNotFolded(t *testing.T) {
	home := t.TempDir()
	write(t, home, "MEMORY.md", "# Memory\n")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("the bank PIN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "MEMORY.sync-conflict-20261127-101500-ABCDEF1.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	folded, err := FoldCopies(home)
	if len(folded) != 0 || err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folded %v, err %v", folded, err)
	}
	if strings.Contains(read(t, home, "MEMORY.md"), "PIN") {
		t.Error("the linked file was read into MEMORY.md")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error("the link was removed")
	}
}

func execGit(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return cmd
}
