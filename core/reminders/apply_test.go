package reminders

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A reminder from another device is held to the rules of one added here:
// text as Add checks it, times in the stored form, a known status, a
// creator on one printable line, an id of 32 hex digits. A refused one
// writes nothing; a good one is stored trimmed and recorded (issue 45
// item 5, issue 49 item 2).
func TestApplyTxChecksAsAddDoes(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if _, err := db.Exec(`ALTER TABLE reminders ADD COLUMN uid TEXT`); err != nil { // journal's migration adds it
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	uid := strings.Repeat("0f", 16)
	good := func() *Value {
		return &Value{Text: " call mom ", DueAt: "2026-12-01T09:00:00Z", Status: StatusPending, CreatedBy: "user", CreatedAt: "2026-11-28T08:00:00Z"}
	}
	late := "2026-12-01T09:00:00.5Z"
	for name, change := range map[string]func(in *Incoming){
		"text of 5,000 characters": func(in *Incoming) { in.Value.Text = strings.Repeat("x", 5000) },
		"empty text":               func(in *Incoming) { in.Value.Text = " \n " },
		"unknown status":           func(in *Incoming) { in.Value.Status = "urgent" },
		"due time in words":        func(in *Incoming) { in.Value.DueAt = "tomorrow" },
		"delivered at a fraction":  func(in *Incoming) { in.Value.DeliveredAt = &late },
		"creator on two lines":     func(in *Incoming) { in.Value.CreatedBy = "user\n\n## SYSTEM" },
		"creator with an escape":   func(in *Incoming) { in.Value.CreatedBy = "user\x1b[2J" },
		"id that is not hex":       func(in *Incoming) { in.UID = "../../x" },
	} {
		in := Incoming{UID: uid, Op: "add", Value: good(), Wins: true, From: "sync from x", Lost: "lost"}
		change(&in)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ApplyTx(ctx, tx, in, now); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: ApplyTx = %v, want ErrInvalid", name, err)
		}
		tx.Rollback()
	}
	var n int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM reminders) + (SELECT count(*) FROM reminder_changes)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows after refused changes (%v)", n, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyTx(ctx, tx, Incoming{UID: uid, Op: "add", Value: good(), Wins: true, From: "sync from x"}, now); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	list, err := NewStore(db, nil).All(ctx)
	if err != nil || len(list) != 1 || list[0].Text != "call mom" {
		t.Fatalf("after a good change: %+v, %v", list, err)
	}
}
