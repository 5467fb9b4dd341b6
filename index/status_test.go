package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD, "logs/2026-11-20.md": log1, "logs/bad.md": "\xff\xfe"})
	ageAll(t, home)
	ix, _ := open(t, home)

	st, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Rebuild == "" || st.Changed != 3 || !st.LastReindex.IsZero() {
		t.Fatalf("before any reindex: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(home, FileName)); err == nil {
		t.Fatal("Status created index.db")
	}

	before := time.Now()
	rs := reindex(t, ix, false)
	st, err = ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 || st.Chunks != rs.Chunks || st.Bytes != int64(len(memoryMD)+len(log1)) || st.Problems != 1 ||
		st.Changed != 0 || st.Rebuild != "" || st.LastReindex.Before(before.Add(-time.Second)) {
		t.Fatalf("after reindex: %+v (reindex %+v)", st, rs)
	}

	write(t, home, "logs/2026-11-21.md", "# new\n\nnew note\n")
	os.Remove(filepath.Join(home, "MEMORY.md"))
	write(t, home, "logs/2026-11-20.md", log1+"\nmore\n")
	st, _ = ix.Status(context.Background())
	if st.Changed != 3 || st.Files != 2 {
		t.Fatalf("after edits: %+v", st)
	}
	// Status only looks: the index still holds the old state.
	if got := search(t, ix, "hazelnuts", SearchOptions{}); len(got) != 1 {
		t.Errorf("status changed the index: %v", paths(got))
	}
}
