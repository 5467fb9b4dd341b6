package core

import (
	"context"
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
