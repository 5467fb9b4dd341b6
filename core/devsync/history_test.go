package devsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"agent/memory"
)

// Item 3: a remote replaced by another history (a backup of another
// workspace, a force-push) is not adopted: the sync stops, nothing changes
// here, nothing is pruned; --keep-local pushes this device's history back
// (the remote's kept here), --take-remote moves onto the remote's (this
// device's kept, its changes since the last sync carried over).
func TestUnrelatedRemoteIsNotAdopted(t *testing.T) {
	for _, choice := range []string{"stop", "keep-local", "take-remote"} {
		t.Run(choice, func(t *testing.T) {
			a, _, remote := twoDevices(t)
			appendLog(t, a, "09:00", "synced entry")
			sync(t, a)
			appendLog(t, a, "10:00", "written since the last sync")
			synced := head(t, a)

			other := t.TempDir()
			gitIn(t, other, "init", "-q", "-b", "main")
			gitIn(t, other, "config", "user.email", "x@example.com")
			gitIn(t, other, "config", "user.name", "x")
			write(t, other, "MEMORY.md", "# Memory\n\n- somebody else's\n")
			gitIn(t, other, "add", "-A")
			gitIn(t, other, "commit", "-qm", "another workspace")
			gitIn(t, other, "push", "-q", "-f", remote, "HEAD:main")

			o := testOptions(a, "")
			o.KeepLocal, o.TakeRemote = choice == "keep-local", choice == "take-remote"
			_, err := Sync(context.Background(), o)
			switch choice {
			case "stop":
				if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "--keep-local") || !strings.Contains(err.Error(), "--take-remote") {
					t.Fatalf("sync onto an unrelated remote: %v", err)
				}
				if !g(t, a, "merge-base", "--is-ancestor", synced, "HEAD") || g(t, a, "merge-base", "--is-ancestor", "origin/main", "HEAD") {
					t.Error("the branch moved onto the remote's")
				}
				if strings.Contains(read(t, a, "MEMORY.md"), "somebody else's") {
					t.Error("the remote's files came in")
				}
				if !strings.Contains(read(t, a, "logs/2026-11-27.md"), "written since the last sync") {
					t.Error("the entry written since was lost")
				}
				// Stopping again and again changes nothing either.
				if err := syncErr(t, a); !errors.Is(err, ErrDiverged) {
					t.Fatalf("second sync: %v", err)
				}
			case "keep-local":
				if err != nil {
					t.Fatal(err)
				}
				if got := gitIn(t, remote, "show", "main:logs/2026-11-27.md"); !strings.Contains(got, "written since the last sync") {
					t.Errorf("the remote's branch is not this device's:\n%s", got)
				}
				if kept := gitIn(t, a, "for-each-ref", "--format=%(refname)", keptPrefix); !strings.Contains(kept, keptPrefix+"remote-") {
					t.Errorf("the remote's history was not kept: %q", kept)
				} else if m := gitIn(t, a, "show", strings.TrimSpace(kept)+":MEMORY.md"); !strings.Contains(m, "somebody else's") {
					t.Errorf("kept: %s", m)
				}
			case "take-remote":
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(read(t, a, "MEMORY.md"), "somebody else's") {
					t.Error("the remote's files did not come in")
				}
				if !strings.Contains(read(t, a, "logs/2026-11-27.md"), "written since the last sync") {
					t.Error("this device's change since the last sync was not carried over")
				}
				if kept := gitIn(t, a, "for-each-ref", "--format=%(refname)", keptPrefix); !strings.Contains(kept, keptPrefix+"local-") {
					t.Errorf("this device's history was not kept: %q", kept)
				}
			}
			// Nothing was pruned: the commit this device synced is still here.
			gitIn(t, a, "cat-file", "-e", synced+"^{commit}")
		})
	}
}

// Item 3: a remote rolled back to an older commit (restored from a
// backup) loses nothing: the sync pushes this device's history again.
func TestRolledBackRemoteLosesNothing(t *testing.T) {
	a, b, remote := twoDevices(t)
	old := strings.TrimSpace(gitIn(t, remote, "rev-parse", "main"))
	appendLog(t, a, "09:00", "after the backup")
	sync(t, a)
	sync(t, b)
	gitIn(t, remote, "update-ref", "refs/heads/main", old) // the backup restored
	appendLog(t, b, "10:00", "desktop after the restore")
	sync(t, b)
	sync(t, a)
	for _, home := range []string{a, b} {
		sync(t, home)
		got := read(t, home, "logs/2026-11-27.md")
		for _, s := range []string{"after the backup", "desktop after the restore"} {
			if !strings.Contains(got, s) {
				t.Errorf("%s lost %q:\n%s", home, s, got)
			}
		}
	}
}

// Item 3: a rewritten history whose tree is not the old one with phrases
// replaced by the forget's marker (here: an entry removed) is no forget.
func TestForgedForgetIsNotAdopted(t *testing.T) {
	a, b, _ := twoDevices(t)
	appendLog(t, a, "09:00", "an entry the remote wants gone")
	sync(t, a)
	sync(t, b)
	log := read(t, b, "logs/2026-11-27.md")
	cut := strings.Replace(log, "\n### 09:00\n\nan entry the remote wants gone\n", "", 1)
	if cut == log {
		t.Fatalf("no entry to remove in:\n%s", log)
	}
	write(t, b, "logs/2026-11-27.md", cut)
	if err := MarkRewrite(b); err != nil {
		t.Fatal(err)
	}
	sync(t, b) // squashed and force-pushed, as a forget would
	err := syncErr(t, a)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "it changes line") {
		t.Fatalf("sync onto a rewrite that is no forget: %v", err)
	}
	if !strings.Contains(read(t, a, "logs/2026-11-27.md"), "an entry the remote wants gone") {
		t.Error("the entry was removed here")
	}
}

// Item 4: a sync and writers at once lose nothing, on every path: merges
// (the other device pushes between the syncs) and an adoption (the other
// device forgets and rewrites the history midway). Every entry written is
// on both devices at the end.
func TestWritesDuringSyncsAreKept(t *testing.T) {
	a, b, _ := twoDevices(t)
	const writers = 3
	var wg gosync.WaitGroup
	stop := make(chan struct{})
	written := make([]int, writers)
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				at := time.Date(2026, 11, 27, 12+w, i%60, 0, 0, time.UTC)
				if _, err := memory.AppendLog(a, at, fmt.Sprintf("writer %d entry %d", w, i)); err != nil {
					errs <- err
					return
				}
				written[w] = i + 1
				time.Sleep(time.Duration(60+20*w) * time.Millisecond)
			}
		}()
	}
	const phrase = "the door code is 9911"
	var failed []string
	for round := 0; round < 4; round++ {
		appendLog(t, b, fmt.Sprintf("08:%02d", round), fmt.Sprintf("desktop round %d", round))
		if round == 1 {
			appendLog(t, b, "07:00", phrase)
		}
		if round == 2 {
			forgetHere(t, b, "logs/2026-11-27.md", phrase)
			if err := MarkRewrite(b); err != nil {
				t.Fatal(err)
			}
		}
		// A failed sync is counted, not fatal: the entries are counted
		// either way.
		for _, home := range []string{b, a} {
			if err := syncErr(t, home); err != nil {
				failed = append(failed, err.Error())
			}
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a writer failed: %v", err)
	}
	sync(t, a)
	sync(t, b)
	total := 0
	for _, home := range []string{a, b} {
		got := read(t, home, "logs/2026-11-27.md")
		for w := range writers {
			total += written[w]
			for i := range written[w] {
				if s := fmt.Sprintf("writer %d entry %d\n", w, i); strings.Count(got, s) != 1 {
					t.Errorf("%s: %q %d times", home, s, strings.Count(got, s))
				}
			}
		}
		if strings.Contains(got, phrase) {
			t.Errorf("%s: the forgotten phrase is back", home)
		}
	}
	for _, f := range failed {
		t.Errorf("a sync during the writes failed: %s", f)
	}
	t.Logf("%d entries written during the syncs", total/2)
}

// g runs git in dir and says whether it exited 0.
func g(t *testing.T, dir string, args ...string) bool {
	t.Helper()
	return execGit(dir, args...).Run() == nil
}

// What a forget leaves is the old text with phrases replaced by the
// marker; anything else removed, or one marker standing for two removed
// lines, is not. Journal lines compare as the JSON they hold.
func TestForgetsIn(t *testing.T) {
	const m = "[forgotten]"
	for _, c := range []struct {
		old, new string
		n        int
	}{
		{"a\nmy pin is 4711\nb\n", "a\nmy pin is [forgotten]\nb\nc\n", 1},
		{"a\nb\n", "a\nb\nnew\n", 0},
		{"a\nsecret one\nsecret two\n", "a\n[forgotten]\n", -1},
		{"a\nkept\n", "a\n", -1},
		{"- fact one\n- fact two\n", "- [forgotten]\n- [forgotten]\n", 2},
		{canonicalLines(`{"b":1,"a":"Marta \u0026 Tom"}`), canonicalLines(`{"a":"[forgotten]","b":1}`), 1},
	} {
		if n, _ := forgetsIn(c.old, c.new, m); n != c.n {
			t.Errorf("forgetsIn(%q, %q) = %d, want %d", c.old, c.new, n, c.n)
		}
	}
}
