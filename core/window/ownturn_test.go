package window

import (
	"strings"
	"testing"
)

// A recalled passage is one of the session's own turns, already in the
// window, when it overlaps the lines the turn was logged on, its last line
// included: a passage starting on that line is not sent a second time. The
// passage starting on the next line is another memory and is recalled.
func TestRecallStartingOnAnOwnTurnsLastLineIsInHistory(t *testing.T) {
	in := baseInput()
	turn := LogSpan{Path: "logs/2026-11-22.md", Start: 5, End: 8}
	// Short words, so that only where the turn was logged can tell it.
	in.History = []StoredMessage{
		{Role: "user", Content: "Lisbon trip?", Status: StatusComplete, Logged: turn},
		{Role: "assistant", Content: "Noted.", Status: StatusComplete},
	}
	in.OwnTurns = []LogSpan{turn}
	in.Recalled = []Recalled{
		{Path: turn.Path, StartLine: 8, EndLine: 11, Text: "**Atlas:** Noted.\n\n### 10:12\n\nthe flight is at 07:40"},
		{Path: turn.Path, StartLine: 9, EndLine: 11, Text: "### 10:12\n\nthe train is at 06:10"},
	}
	a, err := Assemble(in)
	if err != nil {
		t.Fatal(err)
	}
	mem := a.Layers[4]
	if mem.Items != 1 || !strings.Contains(mem.Source, "1 already in history") {
		t.Errorf("memory layer %+v, want the passage after the turn alone and one already in history", mem)
	}
	if strings.Contains(a.Context, "07:40") {
		t.Errorf("the passage starting on the turn's last line was recalled again:\n%s", a.Context)
	}
	if !strings.Contains(a.Context, "06:10") {
		t.Errorf("the passage after the turn was not recalled:\n%s", a.Context)
	}
}
