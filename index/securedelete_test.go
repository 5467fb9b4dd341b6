package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDeletedTextLeavesNoBytes: a secret removed from a log by an edit is
// gone from index.db's bytes after the ordinary incremental update, not
// only after --full (issue 33, leak 3). It looks as `strings` would, in any
// case: FTS5 keeps its terms lowercased.
func TestDeletedTextLeavesNoBytes(t *testing.T) {
	const secret = "Zq7VortexPassphrase"
	files := map[string]string{}
	for i := 1; i <= 40; i++ {
		files[fmt.Sprintf("logs/2026-10-%02d.md", i%28+1)] += fmt.Sprintf("## Note %d\n\nAn ordinary day, walked the dog, number %d.\n\n", i, i)
	}
	files["logs/2026-11-20.md"] = "## Wifi\n\nThe router password is " + secret + " for now.\n\n## Lunch\n\nSoup.\n"
	home := workspace(t, files)
	ageAll(t, home)
	ix, _ := open(t, home)
	reindex(t, ix, true)
	// An incremental update first, so the secret also sits in pages an
	// update wrote, not only in the fresh file a full build leaves.
	write(t, home, "logs/2026-11-21.md", "## Again\n\nStill "+secret+".\n")
	reindex(t, ix, false)
	if !containsFold(t, home, secret) {
		t.Fatal("the secret is not in index.db before the edit: the test looks in the wrong place")
	}

	write(t, home, "logs/2026-11-20.md", "## Wifi\n\nThe router password is changed for now.\n\n## Lunch\n\nSoup.\n")
	if err := os.Remove(filepath.Join(home, "logs/2026-11-21.md")); err != nil {
		t.Fatal(err)
	}
	if st := reindex(t, ix, false); st.Full || st.Changes() != 2 {
		t.Fatalf("update = %+v, want an incremental one of 2 files", st)
	}
	if hits := search(t, ix, "router", SearchOptions{}); len(hits) != 1 {
		t.Fatalf("the edited note is not searchable: %v", hits)
	}
	ix.Close()
	if containsFold(t, home, secret) || containsFold(t, home, secret[4:]) {
		t.Error("the deleted secret's bytes are still in index.db (or its journal) after an incremental update")
	}
}

// containsFold reports whether index.db or any file beside it (journal)
// holds s in any case.
func containsFold(t *testing.T, home, s string) bool {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(home, FileName+"*"))
	for _, p := range matches {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(s))) {
			return true
		}
	}
	return false
}

var _ = context.Background
