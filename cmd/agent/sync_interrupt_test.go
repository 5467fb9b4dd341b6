package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Ctrl-C during a sync exits 130 and says what became of it: here it
// struck before anything was exchanged, with a change of this device's
// waiting; the next sync does it all. Before, it said only "interrupted".
func TestCtrlCDuringSync(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("sync needs git:", err)
	}
	home := ttyWorkspace(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errb strings.Builder
	code := run(ctx, []string{"agent", "--home", home, "sync", "--remote", remote},
		&iostreams{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &errb})
	// One line, sync's own: the journal's flush, stopped too, is no
	// "unusable state.db" (it was, before statedb told a stopped query
	// from a file it cannot read).
	last := strings.TrimSpace(errb.String())
	if code != exitInterrupted || last != "agent: interrupted: the exchange with the remote did not finish; run agent sync again to finish it (each step is whole: nothing is half-done)" {
		t.Fatalf("exit %d, stderr %q; want 130 and what became of the sync", code, errb.String())
	}
	if code, _, stderr := runPiped(t, "--home", home, "sync", "--remote", remote); code != 0 {
		t.Fatalf("sync again: exit %d: %s", code, stderr)
	}
	if out, err := exec.Command("git", "--git-dir", remote, "log", "--oneline").CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) == 0 {
		t.Errorf("after the second sync the remote holds no commit: %v %s", err, out)
	}
}
