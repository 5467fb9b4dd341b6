package core

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"agent/index"
)

// Every database the project opens (state.db, index.db and index.db's
// rebuild file) stays inside a workspace whose path holds characters a
// SQLite URI gives a meaning to: '#', '?', '%', spaces, non-ASCII letters.
func TestDatabasesStayInOddlyNamedWorkspaces(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"ws#x", "ws?mode=ro", "50%", "100%25", "my notes", "Zürich 東京"} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			home := filepath.Join(parent, name)
			ws, _, err := Init(ctx, home)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewSessions(ws.State, time.Now).Create(ctx, "", "m"); err != nil {
				t.Fatalf("write to state.db: %v", err)
			}
			ws.Close()
			ws, err = Open(ctx, home)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			ws.Close()

			ix, err := index.Open(ctx, home, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Reindex(ctx, index.ReindexOptions{Full: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
				t.Fatal(err)
			}
			ix.Close()

			for _, f := range []string{StateFile, index.FileName} {
				if _, err := os.Stat(filepath.Join(home, f)); err != nil {
					t.Errorf("%s not in the workspace: %v", f, err)
				}
			}
			if got := names(t, parent); len(got) != 1 || got[0] != name {
				t.Errorf("beside the workspace: %q, want only %q", got, name)
			}
		})
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
