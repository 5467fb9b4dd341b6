package journal_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"agent/core/journal"
)

// An error that is not the line's (here a trigger that fails as a busy or
// full disk would, on one key) refuses nothing: the line is deferred, the
// lines after it apply, and it applies at the next replay once the error is
// gone. A line its owner refuses (ErrInvalid) is still refused for good.
func TestAnErrorNotTheLinesDefersItAndRefusesNothing(t *testing.T) {
	ctx := context.Background()
	b := newDevice(t)
	now := time.Now().UnixMilli()
	lines := []string{
		line(t, now, 0, journal.KindProfile, "user.pref.drink", "set", "tea"),
		line(t, now, 1, journal.KindProfile, "user.pref.a\nb", "set", "x"), // invalid: refused
		line(t, now, 2, journal.KindProfile, "user.pref.food", "set", "rice"),
	}
	trigger := `CREATE TRIGGER fail_drink BEFORE INSERT ON profile_records WHEN NEW.key = 'user.pref.drink'
		BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`
	if _, err := b.ws.State.Exec(trigger); err != nil {
		t.Fatal(err)
	}
	// An error on one line does not stop the rest (replayFrom fails on one).
	res := replayFrom(t, b, []byte(strings.Join(lines, "\n")+"\n"))
	if res.Applied != 1 || res.Bad != 1 || len(res.Refused) != 2 || res.Refused[0].Line != 1 ||
		!strings.Contains(res.Refused[0].String(), "tried again") || res.Refused[1].Line != 2 {
		t.Errorf("first replay: %+v; want line 1 deferred, line 2 refused, line 3 applied", res)
	}
	var n int
	if err := b.ws.State.QueryRow(`SELECT count(*) FROM journal_refused`).Scan(&n); err != nil || n != 1 {
		t.Errorf("journal_refused holds %d lines (%v), want the invalid one only", n, err)
	}
	if got := b.get("user.pref.food"); got != "rice" {
		t.Errorf("user.pref.food = %q", got)
	}
	// Unchanged file, error still there: deferred again, nothing refused.
	res, err := journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil || res.Files != 1 || res.Bad != 0 || res.Applied != 0 || len(res.Refused) != 1 {
		t.Errorf("second replay: %+v, %v; want the line deferred again", res, err)
	}
	if _, err := b.ws.State.Exec(`DROP TRIGGER fail_drink`); err != nil {
		t.Fatal(err)
	}
	res, err = journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil || res.Applied != 1 || len(res.Refused) != 0 {
		t.Errorf("replay once the error is gone: %+v, %v; want the deferred line applied", res, err)
	}
	if v, ok, err := b.profile().Get(ctx, "user.pref.drink"); err != nil || v != "tea" {
		t.Errorf("user.pref.drink = %q, %v, %v; want tea (the deferred line applied)", v, ok, err)
	}
	res, err = journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil || res.Files != 0 {
		t.Errorf("a replay after all applied read %d files (%v), want none", res.Files, err)
	}
}
