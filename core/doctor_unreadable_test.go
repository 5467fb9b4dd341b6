package core_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core"
	"agent/index"
	"agent/index/sqlitedb"
)

// A file the index could not read is a doctor failure until it reads, even
// though nothing changed since the last reindex. The read error is recorded
// in index.db as the index records it (tests run as root: no permission
// stops a read; index's own test injects the failure).
func TestDoctorReportsUnreadableFiles(t *testing.T) {
	o, _ := newFakeOllama(t)
	ctx := context.Background()
	home := doctorHome(t)
	db, err := sql.Open("sqlite3", sqlitedb.File(filepath.Join(home, core.IndexFile), "mode=rw"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`UPDATE files SET problem = '` + index.ReadErrorPrefix + `permission denied', hash = NULL, racy = 1,
			first_chunk = NULL, last_chunk = NULL WHERE path = 'MEMORY.md'`,
		`UPDATE meta SET value = x'' WHERE key = 'digest'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "MEMORY.md")); err != nil {
		t.Fatal(err)
	}
	c := doctorCheckNamed(t, core.Doctor(ctx, home, "llama3.2", o), "index")
	if c.OK || c.Detail != "1 file could not be read" || !strings.Contains(c.Fix, "agent memory reindex") {
		t.Errorf("index check = %+v", c)
	}
	// The next reindex reads it (it is readable now) and doctor is content.
	doctorReindex(t, home)
	if c := doctorCheckNamed(t, core.Doctor(ctx, home, "llama3.2", o), "index"); !c.OK {
		t.Errorf("after a reindex that read the file: %+v", c)
	}
}
