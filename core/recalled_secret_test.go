package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
	"agent/memory"
)

// A secret the user keeps in a notes folder, or wrote into a daily log with
// an editor, reaches the index as it is (the index reads notes, it does not
// rewrite them), and from there a recalled passage. The passage goes to the
// model, but state.db, which stores it with the exchange, holds the marker
// instead: no table, and no byte of the database files, carries the secret.
func TestRecalledSecretNeverLandsInStateDB(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	// Shapes the detector surely knows: a GitHub token and an AWS key id.
	const tok = "ghp_Q7dLw2XkR9vPz4TmB8cY1nHs6JfA3eUo0GiK"
	const aws = "AKIAZ4Q7W2KX9RTMB3LP"

	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "deploy.md"), []byte("# Deploy\n\n## Staging box\n\nThe staging deploy token is "+tok+" and it expires in March.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := memory.AddSource(f.home, "work", notes); err != nil {
		t.Fatal(err)
	}
	f.write("logs/2026-11-20.md", "# 2026-11-20\n\n## Backup bucket\n\nThe backup bucket access key id is "+aws+" for the staging deploy.\n")
	f.reopen()

	f.srv.Script(ollamatest.Text("It is in your notes."))
	s := f.session("deploy")
	if _, err := f.chat.Turn(ctx, s, "what is the staging deploy token and the backup bucket key?", nil); err != nil {
		t.Fatal(err)
	}

	// The test proves something only if both passages were recalled and
	// sent: the secrets then were in the context the exchange stores.
	reqs := f.srv.Requests()
	sent := reqs[len(reqs)-1].Messages
	last := sent[len(sent)-1].Content
	for _, secret := range []string{tok, aws} {
		if !strings.Contains(last, secret) {
			t.Fatalf("the passage holding %s was not recalled, so this test proves nothing:\n%s", secret, last)
		}
	}
	var stored string
	for _, m := range f.messages(s) {
		stored += m.Context
	}
	for _, marker := range []string{"[secret: github token]", "[secret: aws access key]"} {
		if !strings.Contains(stored, marker) {
			t.Errorf("the stored context holds no %s:\n%s", marker, stored)
		}
	}

	leaks := func(where, s string) {
		t.Helper()
		for _, secret := range []string{tok, aws} {
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
