package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Opening applies its rules in order whoever calls it: a conflict copy is
// merged before the work started ahead reads the files, and a forget a
// kill left is settled, which the workspace reports as a change.
func TestOpenAppliesEveryRuleInOrder(t *testing.T) {
	ctx := context.Background()
	home := newHome(t)
	log := filepath.Join(home, LogsDir, "2026-11-20.md")
	copyName := filepath.Join(home, LogsDir, "2026-11-20.sync-conflict-20261120-101500-ABCDEF1.md")
	if err := os.WriteFile(log, []byte("# 2026-11-20\n\n### 09:00\n\ndesktop fired the kiln\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyName, []byte("# 2026-11-20\n\n### 10:00\n\nlaptop glazed the bowls\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, ".forget"), 0o700); err != nil { // a forget killed before its journal
		t.Fatal(err)
	}
	var said []string
	aheadSaw := ""
	ws, err := OpenWith(ctx, home, OpenOptions{
		Info: func(msg string) { said = append(said, msg) },
		Warn: func(msg string) { t.Errorf("warned: %s", msg) },
		Ahead: func() {
			b, _ := os.ReadFile(log)
			aheadSaw = string(b)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if !strings.Contains(aheadSaw, "laptop glazed the bowls") {
		t.Errorf("the work started ahead read the log before the copy was merged:\n%s", aheadSaw)
	}
	if len(said) != 1 || !strings.Contains(said[0], "a copy a file-sync tool left, into logs/2026-11-20.md") {
		t.Errorf("said %q, want the merged copy", said)
	}
	if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) {
		t.Errorf("the interrupted forget was not settled: %v", err)
	}
	if !ws.Changed {
		t.Error("a settled forget is not reported as a change")
	}
}

// A command that reads only the files (search) gets the same file rules
// without state.db, and state.db's when a forget was interrupted.
func TestOpenFilesSettlesAnInterruptedForget(t *testing.T) {
	ctx := context.Background()
	home := newHome(t)
	if err := os.Mkdir(filepath.Join(home, ".forget"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := OpenFiles(ctx, home, OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) {
		t.Errorf("the interrupted forget was not settled: %v", err)
	}
	if err := OpenFiles(ctx, filepath.Join(t.TempDir(), "none"), OpenOptions{}); err == nil {
		t.Error("no error for a home without a workspace")
	}
}

// newHome is a new workspace, closed.
func newHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "ws")
	ws, _, err := Init(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	return home
}

// An open that cannot ask whether a forget waits fails, saying why,
// rather than going on past a forget it could not look for.
func TestOpenSaysWhyItCannotLookForForgets(t *testing.T) {
	ctx := context.Background()
	home := newHome(t)
	db, err := OpenState(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE forget_keys RENAME TO forget_keys_gone`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ws, err := Open(ctx, home)
	if err == nil {
		ws.Close()
		t.Fatal("open went on without knowing whether a forget waits")
	}
	if !strings.Contains(err.Error(), "forget") || !strings.Contains(err.Error(), "forget_keys") {
		t.Errorf("open's error %q does not say what failed", err)
	}
}
