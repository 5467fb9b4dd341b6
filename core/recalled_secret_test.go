package core

import (
	"context"
	"database/sql"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
	"agent/memory"
)

// A secret the user keeps in a notes folder, or wrote into a daily log with
// an editor, is replaced by its marker on its way into the index, so the
// recalled passage the model sees holds the marker. And should an index
// still hold one (built by an older detector that did not know its shape),
// state.db, which stores the passage with the exchange, holds the marker
// all the same: no table, and no byte of the database files, carries it.
func TestRecalledSecretNeverLandsInStateDB(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	// Shapes the detector surely knows: a GitHub token with its checksum
	// and an AWS key id.
	tok := githubToken("Q7dLw2XkR9vPz4TmB8cY1nHs6JfA3e")
	const aws = "AKIAZ4Q7W2KX9RTMB3LP"
	markers := map[string]string{tok: "[secret: github token]", aws: "[secret: aws access key]"}

	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "deploy.md"), []byte("# Deploy\n\n## Staging box\n\nThe staging deploy token is "+tok+" and it expires in March.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := memory.AddSource(f.home, "work", notes); err != nil {
		t.Fatal(err)
	}
	f.write("logs/2026-11-20.md", "# 2026-11-20\n\n## Backup bucket\n\nThe backup bucket access key id is "+aws+" for the staging deploy.\n")
	f.reopen()

	const question = "what is the staging deploy token and the backup bucket key?"
	lastSent := func() string {
		reqs := f.srv.Requests()
		sent := reqs[len(reqs)-1].Messages
		return sent[len(sent)-1].Content
	}
	// The index replaced them: the model is sent the markers.
	f.srv.Script(ollamatest.Text("It is in your notes."))
	if _, err := f.chat.Turn(ctx, f.session("deploy"), question, nil); err != nil {
		t.Fatal(err)
	}
	for secret, marker := range markers {
		if got := lastSent(); strings.Contains(got, secret) || !strings.Contains(got, marker) {
			t.Fatalf("the recalled passage should carry %s, not %s:\n%s", marker, secret, got)
		}
	}

	// An index written before the detector knew these shapes: its chunks
	// hold the secrets as the files do.
	db, err := sql.Open("sqlite3", filepath.Join(f.home, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	for secret, marker := range markers {
		if _, err := db.ExecContext(ctx, `UPDATE chunks SET text = replace(text, ?, ?)`, marker, secret); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	f.reopen()
	f.srv.Script(ollamatest.Text("It is in your notes."))
	s := f.session("deploy-again")
	if _, err := f.chat.Turn(ctx, s, question, nil); err != nil {
		t.Fatal(err)
	}
	// The test proves something only if both passages were recalled and
	// sent: the secrets then were in the context the exchange stores.
	for secret := range markers {
		if last := lastSent(); !strings.Contains(last, secret) {
			t.Fatalf("the passage holding %s was not recalled, so this test proves nothing:\n%s", secret, last)
		}
	}
	var stored string
	for _, m := range f.messages(s) {
		stored += m.Context
	}
	for _, marker := range markers {
		if !strings.Contains(stored, marker) {
			t.Errorf("the stored context holds no %s:\n%s", marker, stored)
		}
	}

	leaks := func(where, s string) {
		t.Helper()
		for secret := range markers {
			if strings.Contains(s, secret) {
				t.Errorf("%s holds %s", where, secret)
			}
		}
	}
	tables, err := f.ws.State.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		if err := tables.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	tables.Close()
	for _, n := range names {
		rows, err := f.ws.State.QueryContext(ctx, `SELECT * FROM "`+n+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				leaks("state.db "+n+"."+cols[i], fmt.Sprint(v))
			}
		}
		rows.Close()
	}
	// And the files themselves, the write-ahead log included: a row
	// rewritten later would still leave the secret in a page.
	files, _ := filepath.Glob(filepath.Join(f.home, "state.db*"))
	if len(files) == 0 {
		t.Fatal("no state.db in the workspace")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		leaks(filepath.Base(p), string(b))
	}
}

// githubToken is a GitHub token of the given 30-character body: its CRC32
// in base62, six digits, makes it one (a look-alike without it is not).
func githubToken(body string) string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := crc32.ChecksumIEEE([]byte(body))
	tail := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		tail[i] = base62[sum%62]
		sum /= 62
	}
	return "ghp_" + body + string(tail)
}
