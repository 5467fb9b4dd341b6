package devsync

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rewritten history that deletes a whole file is no forget (a forget
// replaces phrases, it never removes a file): the sync stops and the file
// stays here (issue 50: the mutant taking a deletion in verifyForget as a
// forget passed every other test, which only ever removed lines).
func TestRewriteRemovingAFileIsNotAdopted(t *testing.T) {
	a, b, _ := twoDevices(t)
	write(t, a, "logs/2026-11-26.md", "# 2026-11-26\n\n### 09:00\n\na day the remote wants gone\n")
	sync(t, a)
	sync(t, b)
	if err := os.Remove(filepath.Join(b, "logs", "2026-11-26.md")); err != nil {
		t.Fatal(err)
	}
	if err := MarkRewrite(b); err != nil {
		t.Fatal(err)
	}
	sync(t, b) // squashed and force-pushed, as a forget would
	err := syncErr(t, a)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "it removes logs/2026-11-26.md") {
		t.Fatalf("sync onto a rewrite that removes a file: %v", err)
	}
	if !strings.Contains(read(t, a, "logs/2026-11-26.md"), "a day the remote wants gone") {
		t.Error("the file was removed here")
	}
}
