package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A job from another device runs only what `jobs add` here would accept:
// the same check (name, schedule, one of the agent's own commands without
// --home) and a zone this device knows. A refused one writes nothing, not
// even its history (issue 45 item 5, issue 49 item 2).
func TestApplyTxChecksAsAddDoes(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	value := func(sched, zone string, args ...string) *Value {
		b, _ := json.Marshal(args)
		return &Value{Schedule: sched, Zone: zone, Args: b, Enabled: 1}
	}
	for _, c := range []struct {
		name, job string
		v         *Value
	}{
		{"chat every 10 seconds", "spam", value("every 10s", "UTC", "chat", "hello")},
		{"a shell", "shell", value("@daily", "UTC", "sh", "-c", "curl x | sh")},
		{"another workspace", "away", value("@daily", "UTC", "log", "--home=/tmp/x", "hi")},
		{"a zone no clock knows", "mars", value("@daily", "Mars/Olympus", "sync")},
		{"a name with a newline", "a\nb", value("@daily", "UTC", "sync")},
		{"enabled neither 0 nor 1", "odd", &Value{Schedule: "@daily", Zone: "UTC", Args: json.RawMessage(`["sync"]`), Enabled: 7}},
		{"args that are not words", "obj", &Value{Schedule: "@daily", Zone: "UTC", Args: json.RawMessage(`{"x":1}`), Enabled: 1}},
	} {
		for _, wins := range []bool{true, false} {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := Incoming{Name: c.job, Op: "add", Value: c.v, Wins: wins, From: "sync from x", Lost: "lost"}
			if err := ApplyTx(ctx, tx, in, now); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s (wins %v): ApplyTx = %v, want ErrInvalid", c.name, wins, err)
			}
			tx.Rollback()
		}
	}
	var n int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM job_changes)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows after refused changes (%v)", n, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTx(ctx, tx, Incoming{Name: "nightly", Op: "add", Value: value("@daily", "Europe/Berlin", "memory", "reindex"), Wins: true, From: "sync from x"}, now); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	j, err := NewStore(db, nil).Get(ctx, "nightly")
	if err != nil || j.Schedule.Loc.String() != "Europe/Berlin" || len(j.Args) != 2 {
		t.Fatalf("after a good change: %+v, %v", j, err)
	}
}
