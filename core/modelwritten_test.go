package core

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
)

// terminalControls fails when s holds a character a terminal acts on
// (newline and tab are layout).
func terminalControls(t *testing.T, where, s string) {
	t.Helper()
	if i := strings.IndexFunc(s, func(r rune) bool {
		return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || r == '\u202e'
	}); i >= 0 {
		t.Errorf("%s: control character %q not escaped: %q", where, s[i:i+1], s)
	}
}

// A reminder the model sets with control characters in its text is escaped
// in the note the user is shown and in the identity section (which `agent
// prompt` prints) once it is due.
func TestReminderControlCharactersEscaped(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	f.srv.Script(
		ollamatest.CallTool(ToolReminderAdd, map[string]any{"text": "\x1b]0;pwned\x07call\x1b[2J mum \u202eevil", "when": f.now.Add(time.Hour).Format(time.RFC3339)}),
		ollamatest.Text("Done."),
	)
	var notes []string
	f.chat.Notify = func(s string) { notes = append(notes, s) }
	if _, err := f.chat.Turn(ctx, f.session("r"), "remind me", nil); err != nil {
		t.Fatal(err)
	}
	if len(notes) == 0 {
		t.Fatal("no note")
	}
	for _, n := range notes {
		terminalControls(t, "note", n)
	}
	f.now = f.now.Add(2 * time.Hour)
	a, err := f.chat.Assemble(ctx, f.session("r2"), "hello")
	if err != nil {
		t.Fatal(err)
	}
	sys := a.Messages[0].Content
	if !strings.Contains(sys, `call\x1b[2J mum`) {
		t.Fatalf("the due reminder is not shown escaped:\n%s", sys)
	}
	terminalControls(t, "identity section", sys)
}

// A secret the user pastes and the model repeats into every memory write —
// a fact, a log note, a skill, SOUL.md, a reminder, its reply — reaches
// none of the files, no table of state.db and not the index: each holds the
// marker instead. The user is told what was replaced.
func TestSecretsNeverLandInMemory(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	const tok = "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"
	const pw = "hunter2xyz"
	f.srv.Script(
		ollamatest.CallTool(ToolMemoryAppend, map[string]any{"text": "GitHub token: " + tok, "section": "Keys"}),
		ollamatest.CallTool(ToolLogNote, map[string]any{"text": "db password=" + pw}),
		ollamatest.CallTool(ToolSkillSave, map[string]any{"name": "deploy", "description": "Deploy with token " + tok, "body": "Run with GITHUB_TOKEN=" + tok + "\n"}),
		ollamatest.CallTool(ToolSoulUpdate, map[string]any{"content": "# Soul\n\nI keep " + tok + " safe.\n", "reason": "keep " + tok}),
		ollamatest.Text("Saved your token "+tok+" and password="+pw+"."),
	)
	var notes []string
	f.chat.Notify = func(s string) { notes = append(notes, s) }
	if _, err := f.chat.Turn(ctx, f.session("keys"), "remember my github token "+tok+" and password="+pw, nil); err != nil {
		t.Fatal(err)
	}
	leaks := func(where, s string) {
		t.Helper()
		if strings.Contains(s, tok) || strings.Contains(s, pw) {
			t.Errorf("%s holds the secret", where)
		}
	}
	var markers int
	err := filepath.WalkDir(f.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		leaks(p, string(b))
		markers += strings.Count(string(b), "[secret: github token]")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if markers < 4 {
		t.Errorf("%d markers in the workspace's files, want one per write", markers)
	}
	tables, err := f.ws.State.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		tables.Scan(&n)
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
			rows.Scan(ptrs...)
			for i, v := range vals {
				leaks("state.db "+n+"."+cols[i], fmt.Sprint(v))
				if b, ok := v.([]byte); ok {
					leaks("state.db "+n+"."+cols[i], string(b))
				}
			}
		}
		rows.Close()
	}
	if !strings.Contains(strings.Join(notes, "\n"), "secret") {
		t.Errorf("the user was not told a secret was replaced: %q", notes)
	}
}
