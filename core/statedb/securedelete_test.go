package statedb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestDeletedRowLeavesNoBytes: a row deleted from state.db leaves none of
// its text in the file or its WAL once checkpointed (secure_delete): a
// forgotten phrase must not be readable with `strings state.db`.
func TestDeletedRowLeavesNoBytes(t *testing.T) {
	const secret = "Kx9QuietHarborPhrase"
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "state.db")
	set := Set{Component: "t", Files: fstest.MapFS{
		"migrations/0001_t.sql": {Data: []byte("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);")},
	}}
	db, err := Open(ctx, file, true, []Set{set})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < 50; i++ {
		body := "an ordinary note " + strings.Repeat("x", i)
		if i == 25 {
			body = "the code is " + secret
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO notes (body) VALUES (?)", body); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if !fileHolds(t, file, secret) {
		t.Fatal("the secret is not in state.db before the delete: the test looks in the wrong place")
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM notes WHERE body LIKE ?", "%"+secret+"%"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if fileHolds(t, file, secret) {
		t.Error("the deleted row's text is still in state.db (or its -wal) after a checkpoint")
	}
}

func fileHolds(t *testing.T, file, s string) bool {
	t.Helper()
	for _, p := range []string{file, file + "-wal", file + "-shm"} {
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}
