package devsync

import (
	"agent/core/testhome"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agent/memory"
)

// TestMain lets the test binary stand in for agent where git calls it back
// (the merge driver) and where a test needs sync in its own process (to
// kill it).
func TestMain(m *testing.M) {
	Local(workspaceFiles...)
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "merge-file":
			if os.Args[2] != "--" {
				os.Stderr.WriteString("merge-file: the driver's paths must follow --\n")
				os.Exit(2)
			}
			if _, err := DriverFiles(os.Args[3], os.Args[4], os.Args[5], os.Args[6]); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		case "sync":
			if _, err := Sync(context.Background(), testOptions(os.Args[2], "")); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(testhome.Run(m)) // HOME and XDG_CACHE_HOME of its own
}

// workspaceFiles stand for what core and mcpserve hand in as they start
// (core.LocalFiles; core's TestOwnedLocalFilesStayLocal checks that list
// against the owners' names): devsync's tests link neither.
var workspaceFiles = []string{
	"/state.db*", "/index.db*", "/.index.db.new-*", "/.watch.sock", "/.chat_history",
	"/.mcp-logs/", "/mcp.json", "/.mcp-serve.token", "/.forget/", "/.memory.journal",
	"/.monitor-cookie-*", "/.import-*", "/.remote-ollama",
}

func testOptions(home, remote string) Options {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return Options{Home: home, Remote: remote, Driver: "'" + exe + "' merge-file -- %O %A %B %P", Device: filepath.Base(home), Forgotten: "[forgotten]"}
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("these tests run the real git, which is not on PATH: install git")
	}
}

// gitEnv keeps the user's and the machine's git config out of the tests.
func gitEnv(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// twoDevices makes device A's workspace, a bare remote it pushes to, and
// device B cloned from it.
func twoDevices(t *testing.T) (a, b, remote string) {
	t.Helper()
	needGit(t)
	gitEnv(t)
	dir := t.TempDir()
	a, b, remote = filepath.Join(dir, "laptop"), filepath.Join(dir, "desktop"), filepath.Join(dir, "remote.git")
	gitIn(t, dir, "init", "-q", "--bare", remote)
	write(t, a, "SOUL.md", "# Soul\n\nCalm and brief.\n")
	write(t, a, "MEMORY.md", "# Memory\n\n## User Facts\n\n- likes tea\n- lives in Lyon\n\n## Projects\n\n- garden\n")
	write(t, a, "logs/2026-11-27.md", "# 2026-11-27\n\n### 08:00\n\nbreakfast\n")
	write(t, a, "state.db", "precious local state")
	write(t, a, "index.db", "disposable")
	ctx := context.Background()
	rep, err := Sync(ctx, testOptions(a, remote))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Created || !rep.Committed || !rep.Pushed {
		t.Fatalf("first sync: %+v", rep)
	}
	if err := Clone(ctx, remote, testOptions(b, "")); err != nil {
		t.Fatal(err)
	}
	return a, b, remote
}

func write(t *testing.T, home, rel, body string) {
	t.Helper()
	p := filepath.Join(home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, home, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func appendLog(t *testing.T, home, hhmm, text string) {
	t.Helper()
	at, err := time.Parse("2006-01-02 15:04", "2026-11-27 "+hhmm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memory.AppendLog(home, at, text); err != nil {
		t.Fatal(err)
	}
}

// forgetHere does to rel what agent forget does: every occurrence of the
// phrase replaced by the marker.
func forgetHere(t *testing.T, home, rel, phrase string) {
	t.Helper()
	text := read(t, home, rel)
	if !strings.Contains(text, phrase) {
		t.Fatalf("no %q to forget in %s:\n%s", phrase, rel, text)
	}
	write(t, home, rel, strings.ReplaceAll(text, phrase, "[forgotten]"))
}

func sync(t *testing.T, home string) Report {
	t.Helper()
	rep, err := Sync(context.Background(), testOptions(home, ""))
	if err != nil {
		t.Fatalf("sync %s: %v", filepath.Base(home), err)
	}
	return rep
}

func TestTwoDevicesMergeByConstruction(t *testing.T) {
	a, b, _ := twoDevices(t)
	if _, err := os.Stat(filepath.Join(b, "state.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state.db travelled: %v", err)
	}
	if read(t, b, "MEMORY.md") != read(t, a, "MEMORY.md") {
		t.Fatal("the clone differs")
	}

	// Both devices write the same day's log and MEMORY.md, offline.
	appendLog(t, a, "09:00", "laptop at nine")
	appendLog(t, a, "11:00", "laptop at eleven")
	appendLog(t, b, "10:00", "desktop at ten")
	appendLog(t, b, "12:00", "desktop at noon")
	mem := read(t, a, "MEMORY.md")
	write(t, a, "MEMORY.md", strings.Replace(strings.Replace(mem, "- lives in Lyon", "- lives in Paris", 1), "- likes tea\n", "- likes tea\n- has a cat\n", 1))
	write(t, b, "MEMORY.md", strings.Replace(strings.Replace(mem, "- lives in Lyon", "- lives in Berlin", 1), "- garden\n", "- garden\n- kiln\n", 1))

	sync(t, a)
	rep := sync(t, b)
	if rep.Entries != 2 || !rep.Pushed {
		t.Errorf("desktop's sync: %+v, want 2 entries in and a push", rep)
	}
	rep = sync(t, a)
	if rep.Entries != 2 {
		t.Errorf("laptop's second sync: %+v, want the desktop's 2 entries", rep)
	}

	for _, home := range []string{a, b} {
		log := read(t, home, "logs/2026-11-27.md")
		var at []int
		for _, s := range []string{"breakfast", "laptop at nine", "desktop at ten", "laptop at eleven", "desktop at noon"} {
			at = append(at, strings.Index(log, s))
		}
		for i := 1; i < len(at); i++ {
			if at[i-1] < 0 || at[i] < at[i-1] {
				t.Errorf("%s: log not every entry in time order:\n%s", filepath.Base(home), log)
				break
			}
		}
		m := read(t, home, "MEMORY.md")
		for _, s := range []string{"- has a cat", "- kiln", "- lives in Paris", "- lives in Berlin", ConflictMark} {
			if !strings.Contains(m, s) {
				t.Errorf("%s: MEMORY.md lacks %q:\n%s", filepath.Base(home), s, m)
			}
		}
		for _, f := range []string{"MEMORY.md", "logs/2026-11-27.md"} {
			if s := read(t, home, f); strings.Contains(s, "<<<<<<<") || strings.Contains(s, ">>>>>>>") {
				t.Errorf("%s: conflict marker in %s", filepath.Base(home), f)
			}
		}
		if st := gitIn(t, home, "status", "--porcelain"); st != "" {
			t.Errorf("%s: not clean after sync:\n%s", filepath.Base(home), st)
		}
	}
	if read(t, a, "MEMORY.md") != read(t, b, "MEMORY.md") || read(t, a, "logs/2026-11-27.md") != read(t, b, "logs/2026-11-27.md") {
		t.Error("the devices differ after syncing both ways")
	}
}

// The merge rules live in the repository, so the user's own `git pull`
// merges memory files the same way.
func TestManualPullUsesTheDriver(t *testing.T) {
	a, b, _ := twoDevices(t)
	appendLog(t, a, "09:00", "laptop")
	appendLog(t, b, "10:00", "desktop")
	sync(t, a)
	gitIn(t, b, "add", "-A")
	gitIn(t, b, "commit", "-qm", "by hand")
	gitIn(t, b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	log := read(t, b, "logs/2026-11-27.md")
	if !strings.Contains(log, "laptop") || !strings.Contains(log, "desktop") || strings.Contains(log, "<<<<<<<") {
		t.Errorf("git pull's merge:\n%s", log)
	}
}

func TestNoGitIsSaidClearly(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Sync(context.Background(), testOptions(t.TempDir(), ""))
	if !errors.Is(err, ErrNoGit) {
		t.Fatalf("err = %v, want ErrNoGit", err)
	}
}

// Only what is already redacted travels: a secret in the machine-local
// files (state.db, the REPL history, mcp.json, agent mcp serve's token,
// the index) never reaches the remote, and one typed into a note is
// redacted on its way into the log.
func TestNoSecretReachesTheRemote(t *testing.T) {
	a, _, remote := twoDevices(t)
	const secret = "AKIA" + "PIX6EA6QOM66ZJOJ"
	for _, f := range []string{"state.db-wal", ".chat_history", "mcp.json", "index.db", ".mcp-logs/github.log", ".memory.journal", ".mcp-serve.token"} {
		write(t, a, f, "token "+secret+"\n")
	}
	appendLog(t, a, "09:00", "my token is "+secret)
	if strings.Contains(read(t, a, "logs/2026-11-27.md"), secret) {
		t.Fatal("the log holds the secret: redaction on write is broken")
	}
	sync(t, a)
	all := gitIn(t, remote, "cat-file", "--batch-all-objects", "--batch")
	if strings.Contains(all, secret) {
		t.Error("the secret reached the remote")
	}
	if !strings.Contains(all, "my token is") {
		t.Error("the note did not travel (the check above proves nothing)")
	}
}

// A sync killed at any moment leaves a repository the next sync completes:
// the lock dies with the process, git's own leftovers are cleared, and
// every step can run again.
func TestKilledSyncIsCompletedByTheNext(t *testing.T) {
	a, b, remote := twoDevices(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i, delay := range []time.Duration{2, 5, 10, 20, 40, 80} {
		appendLog(t, a, "09:0"+string(rune('0'+i)), "laptop entry "+string(rune('a'+i)))
		appendLog(t, b, "10:0"+string(rune('0'+i)), "desktop entry "+string(rune('a'+i)))
		if i%2 == 0 {
			sync(t, b) // so the killed sync has a merge to do
		}
		cmd := exec.Command(exe, "sync", a)
		cmd.Env = os.Environ()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		// Only sync itself (the git it started finishes on its own, as
		// when the OOM killer picks it), or its whole group (a closed
		// terminal); the last round kills the group, so no git of it is
		// still at work when the test runs git below.
		if i%2 == 0 {
			cmd.Process.Kill()
		} else {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		cmd.Wait()
	}
	// A merge left half done by hand, and stale locks as a killed git
	// leaves them (git config's, the index's), on top.
	gitIn(t, a, "fetch", "-q", "origin")
	exec.Command("git", "-C", a, "merge", "--no-commit", "--no-ff", "origin/main").Run()
	write(t, a, ".git/index.lock", "")
	write(t, a, ".git/config.lock", "")

	sync(t, a)
	sync(t, b)
	sync(t, a)
	for _, home := range []string{a, b} {
		log := read(t, home, "logs/2026-11-27.md")
		for i := range 6 {
			for _, s := range []string{"laptop entry ", "desktop entry "} {
				if n := strings.Count(log, s+string(rune('a'+i))+"\n"); n != 1 {
					t.Errorf("%s: %q %d times:\n%s", filepath.Base(home), s+string(rune('a'+i)), n, log)
				}
			}
		}
		if st := gitIn(t, home, "status", "--porcelain"); st != "" {
			t.Errorf("%s: not clean:\n%s", filepath.Base(home), st)
		}
		if _, err := os.Stat(filepath.Join(home, ".git", "MERGE_HEAD")); err == nil {
			t.Errorf("%s: a merge is still open", filepath.Base(home))
		}
	}
	if h, r := strings.TrimSpace(gitIn(t, a, "rev-parse", "HEAD")), strings.TrimSpace(gitIn(t, remote, "rev-parse", "main")); h != r {
		t.Errorf("laptop at %s, remote at %s", h, r)
	}
}

// What one device forgets, every device and the sync history forget too:
// the forgetting device rewrites the shared history, the other adopts it
// on its next sync, keeping what it wrote meanwhile, and neither the
// devices' repositories nor the remote's branches hold the phrase after.
func TestForgetReachesEveryDeviceAndTheHistory(t *testing.T) {
	a, b, remote := twoDevices(t)
	const phrase = "the combination is 4-8-15"
	appendLog(t, a, "09:00", "safe: "+phrase)
	appendLog(t, a, "09:30", "kept note")
	sync(t, a)
	sync(t, b)
	if !strings.Contains(read(t, b, "logs/2026-11-27.md"), phrase) {
		t.Fatal("the phrase did not reach the other device (the test proves nothing)")
	}
	appendLog(t, b, "11:00", "desktop wrote this meanwhile")
	gitIn(t, b, "add", "-A")
	gitIn(t, b, "commit", "-qm", "unsynced local change")
	appendLog(t, b, "11:30", "and this, not even committed")

	// The forget on the laptop, as agent forget leaves it: the phrase
	// replaced by the marker, and the mark for the next sync.
	forgetHere(t, a, "logs/2026-11-27.md", phrase)
	if err := MarkRewrite(a); err != nil {
		t.Fatal(err)
	}
	sync(t, a)
	sync(t, b)
	sync(t, a)

	for _, home := range []string{a, b} {
		got := read(t, home, "logs/2026-11-27.md")
		if strings.Contains(got, phrase) {
			t.Errorf("%s: the log still holds the phrase:\n%s", filepath.Base(home), got)
		}
		for _, s := range []string{"kept note", "desktop wrote this meanwhile", "and this, not even committed"} {
			if !strings.Contains(got, s) {
				t.Errorf("%s: lost %q:\n%s", filepath.Base(home), s, got)
			}
		}
		if h := gitIn(t, home, "log", "-p", "--all"); strings.Contains(h, phrase) {
			t.Errorf("%s: git log -p --all holds the phrase", filepath.Base(home))
		}
		if objs := gitIn(t, home, "cat-file", "--batch-all-objects", "--batch"); strings.Contains(objs, phrase) {
			t.Errorf("%s: an object in .git still holds the phrase", filepath.Base(home))
		}
		if _, err := os.Stat(filepath.Join(home, rewriteMark)); err == nil {
			t.Errorf("%s: the rewrite mark is left", filepath.Base(home))
		}
	}
	if h := gitIn(t, remote, "log", "-p", "--all"); strings.Contains(h, phrase) {
		t.Error("the remote's history holds the phrase")
	}
	if read(t, a, "logs/2026-11-27.md") != read(t, b, "logs/2026-11-27.md") {
		t.Error("the devices differ")
	}
}

// A sync killed while it moved this device onto a rewritten history
// (before or after its branch moved) is finished by the next: the
// forgotten text stays gone and what this device wrote stays written.
func TestKilledAdoptionIsFinished(t *testing.T) {
	for _, moved := range []bool{false, true} {
		t.Run(map[bool]string{false: "before the branch moved", true: "after the branch moved"}[moved], func(t *testing.T) {
			a, b, _ := twoDevices(t)
			const phrase = "the combination is 4-8-15"
			appendLog(t, a, "09:00", "safe: "+phrase)
			sync(t, a)
			sync(t, b)
			appendLog(t, b, "11:00", "desktop wrote this meanwhile")
			forgetHere(t, a, "logs/2026-11-27.md", phrase)
			if err := MarkRewrite(a); err != nil {
				t.Fatal(err)
			}
			sync(t, a)

			// What the desktop's sync had done when it was killed.
			gitIn(t, b, "add", "-A")
			gitIn(t, b, "commit", "-qm", "agent sync")
			old := strings.TrimSpace(gitIn(t, b, "rev-parse", "origin/main"))
			gitIn(t, b, "fetch", "-q", "origin")
			gitIn(t, b, "update-ref", adoptHead, "HEAD")
			gitIn(t, b, "update-ref", adoptOld, old)
			if moved {
				gitIn(t, b, "reset", "-q", "--hard", "origin/main")
			}

			sync(t, b)
			got := read(t, b, "logs/2026-11-27.md")
			if strings.Contains(got, phrase) || !strings.Contains(got, "desktop wrote this meanwhile") {
				t.Errorf("desktop's log:\n%s", got)
			}
			if h := gitIn(t, b, "log", "-p", "--all"); strings.Contains(h, phrase) {
				t.Error("desktop: git log -p --all holds the phrase")
			}
			if refs := gitIn(t, b, "for-each-ref", "refs/agent/"); strings.Contains(refs, "adopt") {
				t.Errorf("left: %s", refs)
			}
		})
	}
}
