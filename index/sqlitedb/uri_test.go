package sqlitedb

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// oddNames are directory names SQLite's URI parser would misread unescaped.
var oddNames = []string{"ws#x", "ws?mode=ro", "100%25", "50%", "my notes", "Zürich Ærø 東京", "a&b=c", "x;y'z\"", "%2e%2e"}

// A database opened through File lands exactly at the path asked for, with
// nothing created next to its directory, whatever the path's characters.
func TestFileOpensExactlyThatPath(t *testing.T) {
	for _, name := range oddNames {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "state.db")
			db, err := sql.Open("sqlite3", File(path, "mode=rwc&_busy_timeout=1000"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("CREATE TABLE t (x)"); err != nil {
				t.Fatalf("%s: %v", File(path, ""), err)
			}
			db.Close()
			if _, err := os.Stat(path); err != nil {
				t.Errorf("database not at %q: %v", path, err)
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 || entries[0].Name() != name {
				var got []string
				for _, e := range entries {
					got = append(got, e.Name())
				}
				t.Errorf("beside the directory: %q, want only %q", got, name)
			}
		})
	}
}

// The query still reaches SQLite: mode=ro on a missing file fails rather
// than creating it.
func TestFileKeepsTheQuery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a#b?c", "missing.db")
	os.MkdirAll(filepath.Dir(path), 0o755)
	db, err := sql.Open("sqlite3", File(path, "mode=ro"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err == nil {
		t.Errorf("mode=ro opened a missing file: the query was not read")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file created: %v", err)
	}
}

func TestFileEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b c/d.db": "file:/a/b%20c/d.db",
		"/w#x/s?.db":  "file:/w%23x/s%3F.db",
		"/50%/é.db":   "file:/50%25/%C3%A9.db",
		"/plain/x.db": "file:/plain/x.db",
		"//host/x.db": "file:/host/x.db",
	} {
		if got := File(in, ""); got != want {
			t.Errorf("File(%q) = %q, want %q", in, got, want)
		}
	}
}
