package reminders

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"agent/core/statedb"
)

// openDB is a real state.db with this package's schema, opened as core opens
// it (immediate write transactions).
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := statedb.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), true, []statedb.Set{{Component: "reminders", Files: Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestStoreLifecycleRecordsEveryChange(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	st := NewStore(db, func() time.Time { return now })

	a, err := st.Add(ctx, "  call the landlord  ", now.Add(time.Hour), ByUser)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "call the landlord" || a.Status != StatusPending || !a.DueAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("added %+v", a)
	}
	b, _ := st.Add(ctx, "water plants", now.Add(30*time.Minute), "model (chat session x)")
	if _, err := st.Add(ctx, " ", now, ByUser); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("empty text: %v", err)
	}

	p, _ := st.Pending(ctx)
	if len(p) != 2 || p[0].ID != b.ID || p[1].ID != a.ID {
		t.Fatalf("pending not most urgent first: %+v", p)
	}
	if _, err := st.Snooze(ctx, b.ID, now.Add(2*time.Hour), "reminders snooze"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Done(ctx, a.ID, "reminders done"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Done(ctx, a.ID, "reminders done"); err == nil || !strings.Contains(err.Error(), "is done, not pending") {
		t.Fatalf("done twice: %v", err)
	}
	if _, err := st.Remove(ctx, b.ID, "reminders remove"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, 99); err == nil || !strings.Contains(err.Error(), "no reminder 99") {
		t.Fatalf("unknown id: %v", err)
	}
	if p, _ := st.Pending(ctx); len(p) != 0 {
		t.Fatalf("still pending: %+v", p)
	}
	rows, err := db.Query(`SELECT reminder_id, action, coalesce(old_due_at,''), coalesce(new_due_at,''), command FROM reminder_changes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int64
		var action, old, nw, cmd string
		rows.Scan(&id, &action, &old, &nw, &cmd)
		got = append(got, fmt.Sprintf("%d %s %s>%s %s", id, action, old, nw, cmd))
	}
	rows.Close()
	want := []string{
		"1 add >2026-11-27T10:00:00Z user",
		"2 add >2026-11-27T09:30:00Z model (chat session x)",
		"2 snooze 2026-11-27T09:30:00Z>2026-11-27T11:00:00Z reminders snooze",
		"1 done 2026-11-27T10:00:00Z> reminders done",
		"2 removed 2026-11-27T11:00:00Z> reminders remove",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDeliverOnceThenAgainAfterSnooze(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	st := NewStore(db, func() time.Time { return now })
	r, _ := st.Add(ctx, "stretch", now.Add(time.Minute), ByUser)

	if got, _ := st.Deliver(ctx, now, "jobs tick"); len(got) != 0 {
		t.Fatalf("delivered before due: %+v", got)
	}
	later := now.Add(2 * time.Minute)
	got, err := st.Deliver(ctx, later, "jobs tick")
	if err != nil || len(got) != 1 || got[0].ID != r.ID {
		t.Fatalf("deliver: %+v %v", got, err)
	}
	if again, _ := st.Deliver(ctx, later.Add(time.Minute), "jobs tick"); len(again) != 0 {
		t.Fatalf("delivered twice: %+v", again)
	}
	// Delivered but not done: it is still due (PENDING, chat start).
	if due, _ := st.Due(ctx, later); len(due) != 1 {
		t.Fatalf("delivered reminder no longer due: %+v", due)
	}
	st.Snooze(ctx, r.ID, later.Add(time.Hour), "reminders snooze")
	if due, _ := st.Due(ctx, later); len(due) != 0 {
		t.Fatalf("snoozed reminder still due: %+v", due)
	}
	if got, _ := st.Deliver(ctx, later.Add(61*time.Minute), "jobs tick"); len(got) != 1 {
		t.Fatalf("snoozed reminder not delivered again: %+v", got)
	}
}

func TestPendingOrderAndStability(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	loc := mustLoad(t, "Europe/Berlin")
	base := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	st := NewStore(db, func() time.Time { return base })
	for i := 0; i < 7; i++ {
		st.Add(ctx, fmt.Sprintf("task %d %s", i, strings.Repeat("x", 200*(i%2))), base.Add(time.Duration(7-i)*time.Minute), ByUser)
	}
	st.Add(ctx, "not yet", base.Add(time.Hour), ByUser)
	now := base.Add(10 * time.Minute)
	lines, err := Pending(ctx, db, now, loc)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 7 { // all that are due, not "not yet": the caller keeps a few
		t.Fatalf("lines: %q", lines)
	}
	if lines[0] != "reminder 7, due Fri 2026-11-27 10:01 CET: task 6" {
		t.Fatalf("most urgent first: %q", lines[0])
	}
	for _, l := range lines {
		if strings.Contains(l, "not yet") || len([]rune(l)) > 200 {
			t.Fatalf("line over budget or not due: %q", l)
		}
	}
	again, _ := Pending(ctx, db, now.Add(20*time.Minute), loc)
	if strings.Join(again, "\n") != strings.Join(lines, "\n") {
		t.Fatalf("lines moved without a change of state:\n%q\n%q", lines, again)
	}
	line, _ := ChatStartLine(ctx, db, now, loc)
	if !strings.HasPrefix(line, "7 reminders due: \"task 6\" (due since Fri 2026-11-27 10:01 CET), ") || !strings.HasSuffix(line, ", …; see: agent reminders") {
		t.Fatalf("chat start line: %q", line)
	}
	if line, _ := ChatStartLine(ctx, db, base, loc); line != "" {
		t.Fatalf("nothing due yet, got %q", line)
	}
}
