//go:build linux

package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountOrSkip mounts with mount(2), or skips with the reason: mounting
// needs root (CAP_SYS_ADMIN), which CI's e2e has (scripts/e2e.sh runs the
// same checks there); a skip is never a pass.
func mountOrSkip(t *testing.T, source, target, fstype string, flags uintptr, data string) {
	t.Helper()
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		t.Skipf("cannot mount %s on %s (%v): needs root; scripts/e2e.sh checks this in CI", fstype, target, err)
	}
	t.Cleanup(func() { syscall.Unmount(target, syscall.MNT_DETACH) })
}

// diskWorkspace makes a workspace with a note and a reminder, indexed, at
// home.
func diskWorkspace(t *testing.T, home string) {
	t.Helper()
	for _, args := range [][]string{{"init"}, {"log", "the harbour note"}, {"remind", "water the plants", "--at", "+3h"}, {"memory", "reindex"}} {
		if code, _, stderr := runPiped(t, append([]string{"--home", home, "--quiet"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestReadsWorkOnAFullDisk: on a real full tmpfs, the reading commands
// show what is there (with one line saying why nothing can be saved), a
// write is said as a full disk with what became of the data, and doctor
// tells a full disk from a damaged state.db. Before, every one of them
// said "unusable state.db: … is not a readable SQLite database" and doctor
// said to restore it from a backup.
func TestReadsWorkOnAFullDisk(t *testing.T) {
	mnt := t.TempDir()
	mountOrSkip(t, "tmpfs", mnt, "tmpfs", 0, "size=4m")
	home := filepath.Join(mnt, "ws")
	diskWorkspace(t, home)
	fill, err := os.Create(filepath.Join(mnt, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fill.Write(make([]byte, 8<<20)); err == nil {
		t.Fatal("8 MB fitted on a 4 MB tmpfs")
	}
	fill.Close()
	before := snapshot(t, home)
	checkDiskReads(t, home, "the disk is full (0 B free at "+home+")", "free some space")
	if after := snapshot(t, home); after != before {
		t.Errorf("the workspace changed on a full disk:\nbefore %s\nafter  %s", before, after)
	}
}

// TestReadsWorkOnAReadOnlyMount: the same on a real read-only bind mount.
// Before, SQLite's "unable to open database file: no such file or
// directory" was reported as an unusable state.db, and every read failed.
func TestReadsWorkOnAReadOnlyMount(t *testing.T) {
	home := filepath.Join(t.TempDir(), "ws")
	diskWorkspace(t, home)
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	mountOrSkip(t, home, ro, "", syscall.MS_BIND, "")
	mountOrSkip(t, "", ro, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, "")
	checkDiskReads(t, ro, ro+" is on a read-only file system", "mount "+ro+" read-write")
}

func checkDiskReads(t *testing.T, home, problem, fix string) {
	t.Helper()
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"memory", "search", "harbour"}, "the harbour note"},
		{[]string{"reminders"}, "water the plants"},
		{[]string{"profile", "show"}, ""},
		{[]string{"sessions", "list"}, ""},
		{[]string{"prompt", "what about the harbour?"}, "the harbour note"},
	} {
		code, stdout, stderr := runPiped(t, append([]string{"--home", home}, c.args...)...)
		if code != 0 || !strings.Contains(stdout, c.out) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and %q", c.args, code, stdout, stderr, c.out)
		}
		if strings.Contains(stderr, "unusable") || strings.Contains(stderr, "damaged") {
			t.Errorf("%v: a disk that refuses writes called a damaged database: %q", c.args, stderr)
		}
	}
	for _, args := range [][]string{{"log", "one more"}, {"memory", "add", "a fact"}, {"remind", "stretch", "--at", "+1h"}} {
		code, _, stderr := runPiped(t, append([]string{"--home", home}, args...)...)
		want := "agent: " + problem + ": nothing was written, nothing was lost and nothing is damaged; "
		if code != exitFailure || !strings.HasPrefix(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q…", args, code, stderr, want)
		}
	}
	code, stdout, stderr := runPiped(t, "--home", home, "doctor")
	want := "fail\tstate.db\t" + problem + ": nothing can be saved; state.db is not damaged (quick_check ok"
	if code != exitFailure || !strings.Contains(stdout, want) || !strings.Contains(stdout, fix) || strings.Contains(stdout, "from a backup") {
		t.Errorf("doctor: exit %d, stdout %q, stderr %q; want %q with the fix %q", code, stdout, stderr, want, fix)
	}
}

// snapshot is every file under dir with its size and sha256: what a
// command on a full disk must leave as it was. SQLite's scratch files (the
// shared-memory index and an empty WAL, which a failed open may leave) hold
// nothing of the user's and are passed over.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasSuffix(rel, "-shm") || strings.HasSuffix(rel, "-wal") && len(data) == 0 {
			return nil
		}
		fmt.Fprintf(&b, "%s %d %x\n", rel, len(data), sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
