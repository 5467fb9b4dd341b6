package forget_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"agent/core/forget"
)

// Issue 45 item 2: forgetting again in the files a merge brought passes
// over a link: the file it points to, outside the workspace, is neither
// read nor rewritten, and the link stays a link.
func TestAgainLeavesLinksAlone(t *testing.T) {
	home, db := workspace(t)
	forgetHeron(t, home, db)
	outside := filepath.Join(t.TempDir(), "elsewhere.md")
	const text = "my own note: blue heron 42\n"
	if err := os.WriteFile(outside, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "logs", "2026-11-21.md")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	changed, err := forget.Again(context.Background(), home, db, []string{"logs/2026-11-21.md"})
	if err != nil || len(changed) != 0 {
		t.Fatalf("Again over a link: %v, %v", changed, err)
	}
	if b, _ := os.ReadFile(outside); string(b) != text {
		t.Errorf("the file outside was rewritten: %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}
