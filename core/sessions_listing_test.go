package core

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The turn count a listing shows is kept by Append (a user message counts,
// a reply or tool result does not), and a state.db from before it was kept
// gets its counts from the migration that added it.
func TestSessionTurnsKeptAndBackfilled(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	ws, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	st := NewSessions(ws.State, func() time.Time { at = at.Add(time.Second); return at })
	want := map[string]int{}
	for i, n := range []int{3, 0, 5} {
		s, err := st.Create(ctx, fmt.Sprintf("s%d", i), "m")
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < n; j++ {
			for _, role := range []string{"user", "assistant", "tool", "assistant"} {
				if _, err := st.Append(ctx, &s, StoredMessage{Role: role, Content: fmt.Sprintf("%s %d", role, j)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		want[s.Name] = n
	}
	check := func(when string) {
		t.Helper()
		list, err := st.List(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 3 {
			t.Fatalf("%s: %d sessions", when, len(list))
		}
		for _, s := range list {
			if s.Turns != want[s.Name] {
				t.Errorf("%s: %s has %d turns, want %d", when, s.Name, s.Turns, want[s.Name])
			}
			if want[s.Name] > 0 && s.LastUser != fmt.Sprintf("user %d", want[s.Name]-1) {
				t.Errorf("%s: %s last user message %q", when, s.Name, s.LastUser)
			}
		}
		// Most recently active first: s2 wrote last, s1 was created after
		// s0's last message.
		if list[0].Name != "s2" || list[1].Name != "s1" || list[2].Name != "s0" {
			t.Errorf("%s: order %s %s %s", when, list[0].Name, list[1].Name, list[2].Name)
		}
	}
	check("kept by Append")

	// Undo the migration, as a state.db written before it would be, and
	// open again: it is applied and counts what is there.
	for _, q := range []string{
		`DROP INDEX sessions_by_activity`,
		`ALTER TABLE sessions DROP COLUMN turns`,
		`DELETE FROM schema_migrations WHERE name = 'core/0003_session_listing.sql'`,
	} {
		if _, err := ws.State.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ws.Close()
	ws, err = Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st = NewSessions(ws.State, time.Now)
	check("backfilled by the migration")
}
