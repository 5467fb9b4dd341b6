package index

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestFTS5Available fails loudly when the binary was built without FTS5:
// every other test would fail too, but less clearly.
func TestFTS5Available(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')"); err != nil {
		t.Fatalf("no FTS5 in this SQLite (%v): build with -tags sqlite_fts5", err)
	}
}

func TestOpenMissingBuildsOnFirstUse(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "# Memory\n\nThe boat is called Aurora.\n"})
	ix, w := open(t, home)
	if got := w.take(); len(got) != 0 {
		t.Errorf("Open warned before doing anything: %q", got)
	}
	hits := search(t, ix, "aurora", SearchOptions{})
	if !reflect.DeepEqual(paths(hits), []string{"MEMORY.md"}) {
		t.Fatalf("hits = %v", paths(hits))
	}
	if got := w.take(); !reflect.DeepEqual(got, []string{"index.db missing: building it"}) {
		t.Errorf("warnings = %q, want one about the missing index.db", got)
	}
	if _, err := os.Stat(filepath.Join(home, FileName)); err != nil {
		t.Fatalf("index.db not created: %v", err)
	}
}

func TestUnusableIndexIsRebuilt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(t *testing.T, path string)
		warning string
	}{
		{"garbage", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(strings.Repeat("not a database ", 500)), 0o644)
		}, "corrupt"},
		{"truncated", func(t *testing.T, p string) {
			os.Truncate(p, 100)
		}, "corrupt"},
		{"other version", func(t *testing.T, p string) {
			execOn(t, p, "PRAGMA user_version = 99")
		}, "schema version 99"},
		{"foreign database", func(t *testing.T, p string) {
			os.Remove(p)
			execOn(t, p, "CREATE TABLE notes(x); INSERT INTO notes VALUES ('hello')")
		}, "not an agent index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := workspace(t, map[string]string{"logs/2026-01-02.md": "# 2026-01-02\n\nPicked up the zeppelin tickets.\n"})
			ix, _ := open(t, home)
			reindex(t, ix, false)
			ix.Close()
			tc.damage(t, filepath.Join(home, FileName))

			ix, w := open(t, home)
			hits := search(t, ix, "zeppelin", SearchOptions{})
			if len(hits) != 1 || hits[0].Path != "logs/2026-01-02.md" {
				t.Fatalf("after rebuild: hits = %v", paths(hits))
			}
			if got := w.take(); len(got) != 1 || !hasWarning(got, tc.warning, "rebuilding it") {
				t.Errorf("warnings = %q, want one with %q", got, tc.warning)
			}
			// Rebuilt once: the next use is quiet.
			ix.Close()
			ix, w = open(t, home)
			search(t, ix, "zeppelin", SearchOptions{Fresh: true})
			if got := w.take(); len(got) != 0 {
				t.Errorf("second use warned: %q", got)
			}
		})
	}
}

func execOn(t *testing.T, path, q string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// A long-lived Index (watch, chat) notices when another process rebuilt
// index.db (a new file renamed into place) or deleted it.
func TestIndexFollowsReplacedFile(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "# M\n\nOld fact about walruses.\n"})
	ageAll(t, home)
	a, _ := open(t, home)
	reindex(t, a, false)
	if got := search(t, a, "walruses", SearchOptions{}); len(got) != 1 {
		t.Fatalf("hits = %v", paths(got))
	}

	write(t, home, "MEMORY.md", "# M\n\nNew fact about narwhals.\n")
	b, _ := open(t, home)
	if st := reindex(t, b, true); !st.Full {
		t.Fatal("not a full rebuild")
	}
	// a never refreshed, but reads the new file.
	if got := search(t, a, "narwhals", SearchOptions{}); len(got) != 1 {
		t.Fatalf("a does not see b's rebuild: hits = %v", paths(got))
	}

	os.Remove(filepath.Join(home, FileName))
	if got := search(t, a, "narwhals", SearchOptions{}); len(got) != 1 {
		t.Fatalf("after index.db was deleted: hits = %v", paths(got))
	}
}

// Reindex builds a missing index.db because it was asked to: no warning.
// A refresh has to build it unasked, and says so.
func TestMissingIndexWarnings(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "# M\n\nfact\n"})
	ix, w := open(t, home)
	reindex(t, ix, false)
	if got := w.take(); len(got) != 0 {
		t.Errorf("Reindex warned: %q", got)
	}
	os.Remove(filepath.Join(home, FileName))
	if _, err := ix.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := w.take(); !reflect.DeepEqual(got, []string{"index.db missing: building it"}) {
		t.Errorf("Refresh warnings = %q", got)
	}
}

func TestCloseTwice(t *testing.T) {
	ix, _ := open(t, workspace(t, nil))
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestOpenNeverTouchesStateDB(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "# M\n\nfact\n"})
	state := filepath.Join(home, "state.db")
	os.WriteFile(state, []byte("precious"), 0o600)
	ix, _ := open(t, home)
	reindex(t, ix, true)
	search(t, ix, "fact", SearchOptions{})
	if b, _ := os.ReadFile(state); string(b) != "precious" {
		t.Fatalf("state.db changed: %q", b)
	}
	if _, err := ix.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
}
