package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// A turn is stored with what it did, as values: the passages its context
// recalled (references, and the byte where they begin) and where it was
// logged (the log and the entry's lines); a turn chatted with --no-log is
// stored as not logged.
func TestTurnStoresWhatItRecalledAndWhereItWasLogged(t *testing.T) {
	f := newChatFixture(t, true)
	f.write("logs/2026-11-20.md", "# 2026-11-20\n\n## Trip planning\n\nFlights to Lisbon booked for the fourth of December.\n")
	f.srv.Script(ollamatest.Text("Lisbon, on the fourth."), ollamatest.Text("Noted."))
	s := f.session("work")
	ctx := context.Background()
	a, err := f.chat.Assemble(ctx, s, "when do I fly to Lisbon?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.chat.Turn(ctx, s, "when do I fly to Lisbon?", nil); err != nil {
		t.Fatal(err)
	}
	f.chat.NoLog = true
	if _, err := f.chat.Turn(ctx, s, "and back?", nil); err != nil {
		t.Fatal(err)
	}
	msgs := f.messages(s)
	user := msgs[0]
	if len(a.Recalled) == 0 || user.RecallAt == 0 {
		t.Fatalf("no recall stored (%d hits, at %d): the test proves nothing", len(a.Recalled), user.RecallAt)
	}
	if !strings.HasPrefix(user.Context[user.RecallAt:], "\n\n"+recallHeader) || strings.Contains(user.Context[:user.RecallAt], "<memory source=\"logs/") {
		t.Errorf("recall stored at byte %d of\n%s", user.RecallAt, user.Context)
	}
	refs, err := user.Recalled.Decode()
	if err != nil || user.Recalled != a.RecallRefs() || len(refs) == 0 || refs[0].Path != "logs/2026-11-20.md" || refs[0].SHA256 == "" {
		t.Errorf("stored references %+v (%v), want %s", refs, err, a.RecallRefs())
	}
	if !user.LogKnown || user.Logged.Path != "logs/2026-11-22.md" {
		t.Fatalf("logged at %+v, want logs/2026-11-22.md", user.Logged)
	}
	b, err := os.ReadFile(filepath.Join(f.home, user.Logged.Path))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	entry := strings.Join(lines[user.Logged.Start-1:user.Logged.End], "\n")
	if !strings.HasPrefix(entry, "### 09:30 · session work") || !strings.HasSuffix(entry, "Lisbon, on the fourth.") || !strings.Contains(entry, "when do I fly to Lisbon?") {
		t.Errorf("lines %d-%d of the log are\n%s", user.Logged.Start, user.Logged.End, entry)
	}
	if last := msgs[len(msgs)-2]; last.Role != "user" || !last.LogKnown || last.Logged != (LogSpan{}) {
		t.Errorf("a turn not logged is stored as logged at %+v", last.Logged)
	}
}
