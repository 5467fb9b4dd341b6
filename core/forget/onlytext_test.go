package forget_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/forget"
	"agent/core/journal"
	"agent/core/reminders"
)

// TestAForgetTouchesOnlyText: words the program itself stores as ids,
// names under an index, statuses a CHECK limits, times and file names it
// finds files by are left as they are (and listed as kept), so a forget
// of "user", "pending" or "2026" never breaks a constraint or a command
// after it; the user's own words around them are replaced (issue 45,
// item 6).
func TestAForgetTouchesOnlyText(t *testing.T) {
	ctx := context.Background()
	home, db := workspace(t)
	if _, err := db.Exec(`INSERT INTO sessions (id, name, created_at, updated_at) VALUES (7, 'pending-chat', '2026-11-27T09:00:00Z', '2026-11-27T09:00:00Z');
		INSERT INTO messages (session_id, role, content, created_at) VALUES (7, 'user', 'the user said pending things in 2026', '2026-11-27T09:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	rs := reminders.NewStore(db, nil)
	if _, err := rs.Add(ctx, "pending call about 2026", time.Now().Add(time.Hour), reminders.ByUser); err != nil {
		t.Fatal(err)
	}
	write(t, home, "logs/2026-11-28.md", "# 2026-11-28\n\n- 2026 was a user's pending year\n")
	for _, phrase := range []string{"user", "pending", "2026"} {
		p, err := forget.Find(ctx, home, db, nil, phrase)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
			t.Fatalf("forget %q: %v", phrase, err)
		}
		if phrase == "pending" {
			kept := false
			for _, pl := range p.Places {
				kept = kept || pl.Table == "sessions" && pl.Column == "name" && strings.Contains(pl.Note, "left as it is")
			}
			if !kept {
				t.Errorf("the session's name is not listed as kept: %+v", p.Places)
			}
		}
	}
	var role, content, name, created string
	if err := db.QueryRow(`SELECT m.role, m.content, s.name, m.created_at FROM messages m JOIN sessions s ON s.id = m.session_id`).Scan(&role, &content, &name, &created); err != nil {
		t.Fatal(err)
	}
	if role != "user" || name != "pending-chat" || created != "2026-11-27T09:00:00Z" {
		t.Errorf("role %q, session %q, time %q: a forget changed what the program relies on", role, name, created)
	}
	if content != "the [forgotten] said [forgotten] things in [forgotten]" {
		t.Errorf("message = %q", content)
	}
	list, err := rs.Pending(ctx)
	if err != nil || len(list) != 1 || list[0].Text != "[forgotten] call about [forgotten]" {
		t.Errorf("reminders after the forgets: %+v, %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(home, "logs", "2026-11-28.md")); err != nil {
		t.Errorf("the log was renamed: %v", err)
	}
	if got := read(t, home, "logs/2026-11-28.md"); got != "# 2026-11-28\n\n- [forgotten] was a [forgotten]'s [forgotten] year\n" {
		t.Errorf("the log should keep its day's heading and lose the words:\n%s", got)
	}
}

// TestAForgetKeepsJournalLinesReadable: in a journal line, a record's key,
// times, status, schedule and zone are read back by every device; a forget
// of "daily" or of a word in a key leaves them (every other device would
// refuse the line) and replaces the user's words around them.
func TestAForgetKeepsJournalLinesReadable(t *testing.T) {
	ctx := context.Background()
	home, db := workspace(t)
	rel := journal.Dir + "/0123456789abcdef.jsonl"
	write(t, home, rel, `{"hlc":{"ms":1700000000000,"c":0,"dev":"0123456789abcdef"},"host":"desk","kind":"job","key":"daily-notes","op":"add","value":{"schedule":"@daily","zone":"UTC","args":["log","daily notes"],"enabled":1}}`+"\n")
	p, err := forget.Find(ctx, home, db, nil, "daily")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	var e journal.Entry
	if err := json.Unmarshal([]byte(read(t, home, rel)), &e); err != nil {
		t.Fatal(err)
	}
	if e.Key != "daily-notes" || !strings.Contains(string(e.Value), `"schedule":"@daily"`) || !strings.Contains(string(e.Value), `"[forgotten] notes"`) {
		t.Errorf("the line after the forget: %+v %s", e, e.Value)
	}
}
