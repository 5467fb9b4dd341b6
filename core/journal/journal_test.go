package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"agent/core/jobs"
	"agent/core/journal"
	"agent/core/reminders"
	"agent/profile"
)

// device is one workspace on its own "machine": its journals travel to
// another device's workspace by copying files, as git or Syncthing would.
type device struct {
	t    *testing.T
	home string
	ws   *workspace
}

func newDevice(t *testing.T) *device {
	t.Helper()
	home := t.TempDir()
	ws, _, err := initWorkspace(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	d := &device{t: t, home: home, ws: ws}
	t.Cleanup(func() { d.ws.Close() })
	return d
}

// reopen ends this device's command (its changes are appended to its
// journal) and starts the next one (other devices' journals are replayed).
func (d *device) reopen() {
	d.t.Helper()
	if err := d.ws.Close(); err != nil {
		d.t.Fatal(err)
	}
	ws, err := openWorkspace(context.Background(), d.home)
	if err != nil {
		d.t.Fatal(err)
	}
	if ws.JournalErr != nil {
		d.t.Fatal(ws.JournalErr)
	}
	d.ws = ws
}

// sendTo copies this device's journals into other's workspace.
func (d *device) sendTo(other *device) {
	d.t.Helper()
	src := filepath.Join(d.home, journal.Dir)
	dst := filepath.Join(other.home, journal.Dir)
	if err := os.MkdirAll(dst, 0o700); err != nil {
		d.t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		d.t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			d.t.Fatal(err)
		}
		if e.Name() == other.id()+".jsonl" {
			continue // the other's own journal is written only there
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			d.t.Fatal(err)
		}
	}
}

func (d *device) id() string {
	dev, err := journal.DeviceOf(context.Background(), d.ws.State, d.home)
	if err != nil {
		d.t.Fatal(err)
	}
	return dev.ID
}

// lastEntry is the last line of the device's journal, decoded.
func (d *device) lastEntry() journal.Entry {
	d.t.Helper()
	var last journal.Entry
	lines := strings.Split(strings.TrimSpace(d.journalText()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		d.t.Fatal(err)
	}
	return last
}

func (d *device) journalText() string {
	b, err := os.ReadFile(filepath.Join(d.home, journal.Dir, d.id()+".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		d.t.Fatal(err)
	}
	return string(b)
}

func (d *device) profile() *profile.Store     { return profile.NewStore(d.ws.State, nil) }
func (d *device) reminders() *reminders.Store { return reminders.NewStore(d.ws.State, nil) }
func (d *device) jobs() *jobs.Store           { return jobs.NewStore(d.ws.State, nil) }

func (d *device) get(key string) string {
	d.t.Helper()
	v, ok, err := d.profile().Get(context.Background(), key)
	if err != nil || !ok {
		d.t.Fatalf("%s: %v (set: %v)", key, err, ok)
	}
	return v
}

func TestRecordsMadeOnOneDeviceAreSeenOnTheOther(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.name", "Ann"); err != nil {
		t.Fatal(err)
	}
	r, err := a.reminders().Add(ctx, "call the plumber", time.Now().Add(time.Hour), reminders.ByUser)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.jobs().Add(ctx, "nightly", "@daily", time.UTC, []string{"memory", "reindex"}); err != nil {
		t.Fatal(err)
	}
	// An hour after the stored due time, not after a second time.Now():
	// times are stored to the second, and a loaded machine can cross one
	// between the two calls (the test failed so under load).
	if _, err := a.reminders().Snooze(ctx, r.ID, r.DueAt.Add(time.Hour), "reminders snooze"); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()

	if got := b.get("user.name"); got != "Ann" {
		t.Errorf("user.name on B = %q, want Ann", got)
	}
	list, err := b.reminders().Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Text != "call the plumber" || !list[0].DueAt.Equal(r.DueAt.Add(time.Hour)) {
		t.Errorf("reminders on B = %+v, want the snoozed plumber", list)
	}
	j, err := b.jobs().Get(ctx, "nightly")
	if err != nil {
		t.Fatal(err)
	}
	if !j.Enabled || strings.Join(j.Args, " ") != "memory reindex" || j.Schedule.Spec != "@daily" {
		t.Errorf("job on B = %+v", j)
	}

	// B's own changes travel back: done, a job disabled, a key unset.
	if _, err := b.reminders().Done(ctx, list[0].ID, "reminders done"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.jobs().SetEnabled(ctx, "nightly", false); err != nil {
		t.Fatal(err)
	}
	if _, err := b.profile().Unset(ctx, profile.ByUser("profile unset"), "user.name"); err != nil {
		t.Fatal(err)
	}
	b.reopen()
	b.sendTo(a)
	a.reopen()
	if got, err := a.reminders().Get(ctx, r.ID); err != nil || got.Status != reminders.StatusDone {
		t.Errorf("reminder on A after B's done: %+v, %v", got, err)
	}
	if j, err := a.jobs().Get(ctx, "nightly"); err != nil || j.Enabled {
		t.Errorf("job on A after B disabled it: %+v, %v", j, err)
	}
	if _, ok, _ := a.profile().Get(ctx, "user.name"); ok {
		t.Errorf("user.name still set on A after B unset it")
	}
	// Nothing B applied from A went back into B's journal.
	if n := strings.Count(b.journalText(), "\n"); n != 3 {
		t.Errorf("B's journal has %d lines, want its own 3 changes:\n%s", n, b.journalText())
	}
}

func clock(at time.Time) func() time.Time { return func() time.Time { return at } }

func TestSameKeyOnTwoDevicesLastWriterWinsLoserInHistory(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	t0 := time.Now()
	// Both set the same key while apart; B's change is the later one.
	if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", "tea"); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, a.ws.State, a.home, clock(t0)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", "coffee"); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, b.ws.State, b.home, clock(t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	a.sendTo(b)
	b.sendTo(a)
	a.reopen()
	b.reopen()
	for _, d := range []*device{a, b} {
		if got := d.get("user.pref.drink"); got != "coffee" {
			t.Errorf("%s: drink = %q, want the later coffee", d.id(), got)
		}
		hist, err := d.profile().History(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var tea bool
		for _, c := range hist {
			tea = tea || (c.Key == "user.pref.drink" && c.Old != nil && *c.Old == "tea")
		}
		if !tea {
			t.Errorf("%s: tea is not in the history: %+v", d.id(), hist)
		}
	}
}

func TestReminderFiredOnOneDeviceIsNotShownOnTheOther(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	if _, err := a.reminders().Add(ctx, "stretch", time.Now().Add(-time.Minute), reminders.ByUser); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	if got, err := a.reminders().Deliver(ctx, time.Now(), "jobs tick"); err != nil || len(got) != 1 {
		t.Fatalf("A shows %d reminders (%v), want 1", len(got), err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	if got, err := b.reminders().Deliver(ctx, time.Now(), "jobs tick"); err != nil || len(got) != 0 {
		t.Errorf("B shows %d reminders (%v) that A showed already", len(got), err)
	}
}

func TestReminderFiredOnBothWhileApartIsListedOnce(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	if _, err := a.reminders().Add(ctx, "stretch", time.Now().Add(-time.Minute), reminders.ByUser); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	for _, d := range []*device{a, b} {
		if got, err := d.reminders().Deliver(ctx, time.Now(), "jobs tick"); err != nil || len(got) != 1 {
			t.Fatalf("shown %d (%v), want 1", len(got), err)
		}
		d.reopen()
	}
	// B marks it done before hearing from A; A's fired line is older or
	// newer, either way the reminder stays done and is there once.
	list, _ := b.reminders().All(ctx)
	if _, err := b.reminders().Done(ctx, list[0].ID, "reminders done"); err != nil {
		t.Fatal(err)
	}
	b.reopen()
	a.sendTo(b)
	b.sendTo(a)
	for _, d := range []*device{a, b} {
		d.reopen()
		all, err := d.reminders().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 1 || all[0].Status != reminders.StatusDone || all[0].DeliveredAt == nil {
			t.Errorf("reminders = %+v, want one, done, fired", all)
		}
	}
}

func TestTornLastLineIsIgnoredAndDoesNotSpoilTheNextAppend(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	set := func(key, v string) {
		if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), key, v); err != nil {
			t.Fatal(err)
		}
		a.reopen()
	}
	set("user.pref.one", "1")
	set("user.pref.two", "2")
	// A kill -9 in the middle of appending the second line.
	file := filepath.Join(a.home, journal.Dir, a.id()+".jsonl")
	text := a.journalText()
	if err := os.WriteFile(file, []byte(text[:len(text)-10]), 0o600); err != nil {
		t.Fatal(err)
	}
	a.sendTo(b)
	res, err := journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 1 || res.Bad != 0 {
		t.Errorf("replay of a torn journal: %+v, want one applied and the torn line left for later", res)
	}
	set("user.pref.three", "3")
	a.sendTo(b)
	res, err = journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 1 || res.Bad != 1 {
		t.Errorf("replay after the next append: %+v, want the new line applied and the torn one skipped", res)
	}
	if got := b.get("user.pref.three"); got != "3" {
		t.Errorf("three = %q", got)
	}
}

func TestReplayIsIdempotent(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	for _, v := range []string{"tea", "coffee", "water"} {
		if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", v); err != nil {
			t.Fatal(err)
		}
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	before, _ := b.profile().History(ctx)
	res, err := journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil || !reflect.DeepEqual(res, journal.Result{}) {
		t.Errorf("second replay with no change: %+v, %v; want nothing read", res, err)
	}
	// The same file again, as if replaced (a git checkout rewrites it).
	if _, err := b.ws.State.Exec(`DELETE FROM journal_read`); err != nil {
		t.Fatal(err)
	}
	res, err = journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil || res.Files != 1 || res.Seen != 3 || res.Applied != 0 || res.Lost != 0 {
		t.Errorf("replay of a file read before: %+v, %v; want 3 seen, none applied", res, err)
	}
	after, _ := b.profile().History(ctx)
	if len(after) != len(before) || b.get("user.pref.drink") != "water" {
		t.Errorf("history grew from %d to %d entries on a replay", len(before), len(after))
	}
}

func TestSecretsAreRedactedInTheJournal(t *testing.T) {
	ctx := context.Background()
	a := newDevice(t)
	const key = "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"
	if _, err := a.reminders().Add(ctx, "rotate token "+key, time.Now().Add(time.Hour), reminders.ByUser); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	text := a.journalText()
	if strings.Contains(text, key) || !strings.Contains(text, "[secret: github token]") {
		t.Errorf("journal holds the secret or no marker:\n%s", text)
	}
}

func TestExistingRecordsAreExportedOnce(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.name", "Ann"); err != nil {
		t.Fatal(err)
	}
	// Make A's state.db as it was before the journal: no journal tables,
	// no outbox, a record made without a trigger watching.
	for _, q := range []string{
		`DROP TRIGGER journal_profile_insert`, `DROP TRIGGER journal_profile_update`, `DROP TRIGGER journal_profile_delete`,
		`DROP TRIGGER journal_reminder_insert`, `DROP TRIGGER journal_reminder_update`, `DROP TRIGGER journal_reminder_delete`,
		`DROP TRIGGER journal_job_insert`, `DROP TRIGGER journal_job_update`, `DROP TRIGGER journal_job_delete`,
		`DELETE FROM schema_migrations WHERE name LIKE 'journal/%'`,
		`DROP TABLE journal_device`, `DROP TABLE journal_outbox`, `DROP TABLE journal_applying`,
		`DROP TABLE journal_applied`, `DROP TABLE journal_clock`, `DROP TABLE journal_read`, `DROP TABLE journal_refused`,
		`DROP INDEX reminders_uid`, `ALTER TABLE reminders DROP COLUMN uid`,
	} {
		if _, err := a.ws.State.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	os.RemoveAll(filepath.Join(a.home, "sync"))
	a.ws.State.Close() // not a.ws.Close: there is no outbox to flush
	ws, err := openWorkspace(ctx, a.home)
	if err != nil {
		t.Fatal(err)
	}
	a.ws = ws
	a.reopen()
	a.reopen()
	if n := strings.Count(a.journalText(), "\n"); n != 1 {
		t.Errorf("A's journal has %d lines after two opens, want the one record once", n)
	}
	a.sendTo(b)
	b.reopen()
	if got := b.get("user.name"); got != "Ann" {
		t.Errorf("user.name on B = %q", got)
	}
}

func TestDoneIsNotUndoneByALaterSnoozeFromApart(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	r, err := a.reminders().Add(ctx, "water the plants", time.Now().Add(time.Hour), reminders.ByUser)
	if err != nil {
		t.Fatal(err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	t0 := time.Now().Add(time.Minute)
	// A says done; B, not having heard it, snoozes a second later.
	if _, err := a.reminders().Done(ctx, r.ID, "reminders done"); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, a.ws.State, a.home, clock(t0)); err != nil {
		t.Fatal(err)
	}
	list, _ := b.reminders().Pending(ctx)
	if _, err := b.reminders().Snooze(ctx, list[0].ID, time.Now().Add(3*time.Hour), "reminders snooze"); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, b.ws.State, b.home, clock(t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	a.sendTo(b)
	b.sendTo(a)
	for _, d := range []*device{a, b} {
		d.reopen()
		if p, _ := d.reminders().Pending(ctx); len(p) != 0 {
			t.Errorf("%s: a reminder marked done is pending again: %+v", d.id(), p)
		}
	}
}

func TestAChangeNotYetAppendedWhenAReplayComesStillConverges(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	// B sets the key; its clock runs an hour ahead of A's.
	if _, err := b.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", "coffee"); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, b.ws.State, b.home, clock(time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	// A sets it too; before this process appends it, another process on
	// A replays B's journal.
	if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", "tea"); err != nil {
		t.Fatal(err)
	}
	b.sendTo(a)
	if _, err := journal.Replay(ctx, a.ws.State, a.home, nil); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	if va, vb := a.get("user.pref.drink"), b.get("user.pref.drink"); va != vb {
		t.Errorf("the devices disagree: A has %q, B has %q", va, vb)
	}
}

func TestJobRunStateStaysOnItsMachine(t *testing.T) {
	ctx := context.Background()
	a := newDevice(t)
	if _, err := a.jobs().Add(ctx, "nightly", "@daily", time.UTC, []string{"memory", "reindex"}); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	before := a.journalText()
	// What ticks write: claims, next runs, failures, and the job turned off
	// by its own failures (as qAutoDisable does).
	for _, q := range []string{
		`UPDATE jobs SET running_since = '2026-11-27T08:00:00Z', next_at = '2026-11-28T00:00:00Z'`,
		`UPDATE jobs SET running_since = NULL, failures = 5, last_status = 'failed'`,
		`UPDATE jobs SET enabled = 0, disabled_reason = 'failed 5 times in a row'`,
	} {
		if _, err := a.ws.State.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	a.reopen()
	if after := a.journalText(); after != before {
		t.Errorf("a tick's bookkeeping went into the journal:\n%s", strings.TrimPrefix(after, before))
	}
}

func TestJobChangedOnBothLoserInHistory(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	if _, err := a.jobs().Add(ctx, "nightly", "@daily", time.UTC, []string{"memory", "reindex"}); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	a.sendTo(b)
	b.reopen()
	t0 := time.Now().Add(time.Minute)
	if _, err := a.jobs().SetEnabled(ctx, "nightly", false); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, a.ws.State, a.home, clock(t0)); err != nil {
		t.Fatal(err)
	}
	if err := b.jobs().Remove(ctx, "nightly"); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, b.ws.State, b.home, clock(t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	a.sendTo(b)
	b.sendTo(a)
	a.reopen()
	b.reopen()
	for _, d := range []*device{a, b} {
		if _, err := d.jobs().Get(ctx, "nightly"); err == nil {
			t.Errorf("%s: the job removed last is still there", d.id())
		}
	}
	var n int
	if err := b.ws.State.QueryRow(`SELECT count(*) FROM job_changes WHERE job_name = 'nightly' AND action = 'lost: disable'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("B's job history holds %d lost disables (%v), want 1", n, err)
	}
}

func TestAWorkspaceCopiedWithItsStateDBIsAnotherDevice(t *testing.T) {
	ctx := context.Background()
	a := newDevice(t)
	if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.name", "Ann"); err != nil {
		t.Fatal(err)
	}
	a.reopen()
	// The whole folder, state.db too, copied to "another machine".
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS(a.home)); err != nil {
		t.Fatal(err)
	}
	ws, err := openWorkspace(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	c := &device{t: t, home: home, ws: ws}
	t.Cleanup(func() { c.ws.Close() })
	if c.id() == a.id() {
		t.Fatalf("the copy kept the device id %s: both would append to one journal", a.id())
	}
	if _, err := c.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", "tea"); err != nil {
		t.Fatal(err)
	}
	c.reopen()
	c.sendTo(a)
	a.reopen()
	if got := a.get("user.pref.drink"); got != "tea" {
		t.Errorf("drink on A = %q, want the copy's tea", got)
	}
}

func TestConcurrentFlushesWriteEachChangeOnce(t *testing.T) {
	ctx := context.Background()
	a := newDevice(t)
	before := strings.Count(a.journalText(), "\n")
	const changes = 40
	for i := range changes {
		if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.n", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	// Several processes ending at once, each with its own connection.
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			ws, err := openWorkspace(ctx, a.home)
			if err == nil {
				err = ws.Close()
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(a.journalText(), "\n"), "\n")
	if got := len(lines) - before; got != changes || before != 0 {
		t.Errorf("the journal gained %d lines for %d changes", got, changes)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var e journal.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("a line that is not an entry: %q", l)
		}
		if seen[e.HLC.String()] {
			t.Errorf("stamp %s written twice", e.HLC)
		}
		seen[e.HLC.String()] = true
	}
}

func TestAConflictCopyOfAJournalIsAppliedOnce(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	for _, v := range []string{"tea", "coffee"} {
		if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.drink", v); err != nil {
			t.Fatal(err)
		}
	}
	a.reopen()
	a.sendTo(b)
	// Syncthing's copy of the same journal beside it.
	dir := filepath.Join(b.home, journal.Dir)
	data, err := os.ReadFile(filepath.Join(dir, a.id()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, a.id()+".sync-conflict-20261127-101500-ABCDEFG.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Applied != 2 || res.Seen != 2 {
		t.Errorf("replay of a journal and its copy: %+v, want 2 applied and 2 seen", res)
	}
	if hist, _ := b.profile().History(ctx); len(hist) != 2 || b.get("user.pref.drink") != "coffee" {
		t.Errorf("history after a journal and its copy: %d changes, want 2", len(hist))
	}
}
