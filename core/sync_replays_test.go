package core

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"agent/core/devsync"
	"agent/profile"
)

// One sync that brings another device's journal replays the journals once:
// after the merge (AfterMerge, which then forgets what the other device
// forgot). Before it, this device's changes are only appended (a replay
// there finds nothing the sync needs), and no replay follows the merge's.
// It replayed three times (before, after the merge, at the end).
func TestOneSyncReplaysTheJournalsOnce(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("this test runs the real git, which is not on PATH")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ctx := context.Background()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	opts := func(home, remote string) devsync.Options {
		// No merge runs (each sync fast-forwards): a driver that fails.
		return devsync.Options{Home: home, Remote: remote, Driver: "false %O %A %B %P", Device: filepath.Base(home)}
	}
	a := newHome(t)
	if _, err := Sync(ctx, opts(a, remote), OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b")
	if err := Clone(ctx, remote, opts(b, ""), OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	ws, _, err := Init(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	ws, err = Open(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profile.NewStore(ws.State, time.Now).Set(ctx, profile.ByUser("profile set"), "user.pref.drink", "tea"); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	if _, err := Sync(ctx, opts(a, ""), OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	before := journalReplays.Load()
	rep, err := Sync(ctx, opts(b, ""), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := journalReplays.Load() - before; n != 1 || len(rep.Files) == 0 {
		t.Errorf("a sync that brought %v replayed the journals %d times, want once", rep.Files, n)
	}
	ws, err = Open(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if v, _, err := profile.NewStore(ws.State, time.Now).Get(ctx, "user.pref.drink"); err != nil || v != "tea" {
		t.Errorf("user.pref.drink on B = %q, %v; want tea (the journal replayed)", v, err)
	}
}
