package journal

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agent/core/jobs"
	"agent/profile"
)

// applier applies entries inside a replay's transaction, at one time.
type applier struct {
	tx    *sql.Tx
	now   time.Time
	stmts map[string]*sql.Stmt
}

// stmt prepares each statement once a replay: preparing one again for every
// entry (those on reminders compile their triggers too) was most of the
// cost of reading a year of entries.
func (a *applier) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := a.stmts[q]; ok {
		return st, nil
	}
	st, err := a.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if a.stmts == nil {
		a.stmts = map[string]*sql.Stmt{}
	}
	a.stmts[q] = st
	return st, nil
}

func (a *applier) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := a.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (a *applier) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := a.stmt(ctx, q)
	if err != nil {
		return a.tx.QueryRowContext(ctx, q, args...) // says the same error at Scan
	}
	return st.QueryRowContext(ctx, args...)
}

func (a *applier) close() {
	for _, st := range a.stmts {
		st.Close()
	}
}

func (a *applier) stamp() string { return a.now.UTC().Truncate(time.Second).Format(time.RFC3339) }

// apply applies one entry once: last writer wins by stamp, and an entry
// that loses is kept in its record's history. An entry this device cannot
// apply (a key or a zone it does not know) is skipped as bad, alone: a
// savepoint takes back what it half did.
func (a *applier) apply(ctx context.Context, e Entry, res *Result) error {
	h := e.HLC.String()
	var one int
	switch err := a.queryRow(ctx, qIsApplied, h).Scan(&one); {
	case err == nil:
		res.Seen++
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	var cur string
	if err := a.queryRow(ctx, qClock, e.Kind, e.Key).Scan(&cur); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	wins := h > cur
	if _, err := a.exec(ctx, "SAVEPOINT entry"); err != nil {
		return err
	}
	var err error
	switch e.Kind {
	case KindProfile:
		err = a.profile(ctx, e, wins)
	case KindReminder:
		err = a.reminder(ctx, e, wins)
	case KindJob:
		err = a.job(ctx, e, wins)
	case KindForget:
		err = a.forget(ctx, e)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, err := a.exec(ctx, "ROLLBACK TO entry"); err != nil {
			return err
		}
		res.Bad++
	} else if wins {
		if _, err := a.exec(ctx, qSetClock, e.Kind, e.Key, h); err != nil {
			return err
		}
		res.Applied++
	} else {
		res.Lost++
	}
	if _, err := a.exec(ctx, "RELEASE entry"); err != nil {
		return err
	}
	_, err = a.exec(ctx, qMarkApplied, h)
	return err
}

func from(e Entry) string { return "sync from " + e.Host }

func lostFrom(e Entry) string {
	return "sync: an older change from " + e.Host + ", kept in history, not applied"
}

func tombstone(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

func (a *applier) profile(ctx context.Context, e Entry, wins bool) error {
	var v *string
	if !tombstone(e.Value) {
		var s string
		if err := json.Unmarshal(e.Value, &s); err != nil {
			return err
		}
		v = &s
	}
	st := profile.NewStore(nil, func() time.Time { return a.now })
	if wins {
		_, err := st.ApplyTx(ctx, a.tx, profile.ByUser(from(e)), e.Key, v)
		return err
	}
	return st.KeepLostTx(ctx, a.tx, profile.ByUser(lostFrom(e)), e.Key, v)
}

// reminderValue is a reminder as it travels (the trigger's json_object).
type reminderValue struct {
	Text        string  `json:"text"`
	DueAt       string  `json:"due_at"`
	Status      string  `json:"status"`
	CreatedBy   string  `json:"created_by"`
	CreatedAt   string  `json:"created_at"`
	DeliveredAt *string `json:"delivered_at"`
}

func (r reminderValue) same(o reminderValue) bool {
	return r.Text == o.Text && r.DueAt == o.DueAt && r.Status == o.Status &&
		(r.DeliveredAt == nil) == (o.DeliveredAt == nil)
}

// mergeReminder is the state of a reminder changed on two devices: the
// winner's, except that done or removed is the user's last word (a snooze
// from a device that had not heard it does not bring the reminder back),
// and that a reminder shown on either device for the same due time has
// fired: it is not shown again, and two devices that both showed it while
// apart leave one reminder, fired once.
func mergeReminder(local, in reminderValue, inWins bool) reminderValue {
	m, other := local, in
	if inWins {
		m, other = in, local
	}
	if m.Status == "pending" && other.Status != "pending" {
		m.Status = other.Status
	}
	if m.DeliveredAt == nil && other.DeliveredAt != nil && other.DueAt == m.DueAt {
		m.DeliveredAt = other.DeliveredAt
	}
	return m
}

func (a *applier) reminder(ctx context.Context, e Entry, wins bool) error {
	var in *reminderValue
	if !tombstone(e.Value) {
		in = new(reminderValue)
		if err := json.Unmarshal(e.Value, in); err != nil {
			return err
		}
	}
	var id int64
	var local reminderValue
	var delivered sql.NullString
	err := a.queryRow(ctx, qReminderByUID, e.Key).Scan(&id, &local.Text, &local.DueAt, &local.Status,
		&local.CreatedBy, &local.CreatedAt, &delivered)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if delivered.Valid {
		local.DeliveredAt = &delivered.String
	}
	switch {
	case in == nil && !found, in != nil && !found && !wins:
		return nil // already gone here, by a change at least as new
	case in == nil && wins:
		if _, err := a.exec(ctx, qDeleteReminderChanges, id); err != nil {
			return err
		}
		_, err := a.exec(ctx, qDeleteReminder, id)
		return err
	case in == nil:
		_, err := a.exec(ctx, qReminderChange, id, "lost: delete", local.DueAt, nil, a.stamp(), lostFrom(e))
		return err
	case !found:
		res, err := a.exec(ctx, qInsertReminder, e.Key, in.Text, in.DueAt, in.Status, in.CreatedBy, in.CreatedAt,
			in.DeliveredAt, a.stamp())
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		_, err = a.exec(ctx, qReminderChange, id, e.Op, nil, in.DueAt, a.stamp(), from(e))
		return err
	}
	m := mergeReminder(local, *in, wins)
	if m.same(local) {
		if wins {
			return nil
		}
		_, err := a.exec(ctx, qReminderChange, id, "lost: "+e.Op, local.DueAt, in.DueAt, a.stamp(), lostFrom(e))
		return err
	}
	if _, err := a.exec(ctx, qUpdateReminder, m.Text, m.DueAt, m.Status, m.DeliveredAt, a.stamp(), id); err != nil {
		return err
	}
	action, command := e.Op, from(e)
	if !wins {
		action, command = "merge: "+e.Op, from(e)+" (older, merged)"
	}
	_, err = a.exec(ctx, qReminderChange, id, action, local.DueAt, m.DueAt, a.stamp(), command)
	return err
}

// jobValue is a job as it travels: what the user chose, not its run state.
type jobValue struct {
	Schedule string          `json:"schedule"`
	Zone     string          `json:"zone"`
	Args     json.RawMessage `json:"args"`
	Enabled  int             `json:"enabled"`
}

func (a *applier) job(ctx context.Context, e Entry, wins bool) error {
	var in *jobValue
	if !tombstone(e.Value) {
		in = new(jobValue)
		if err := json.Unmarshal(e.Value, in); err != nil {
			return err
		}
	}
	if !wins {
		detail := "removed"
		if in != nil {
			detail = in.describe()
		}
		_, err := a.exec(ctx, qJobChange, e.Key, "lost: "+e.Op, lostFrom(e)+": "+detail, a.stamp())
		return err
	}
	if in == nil {
		res, err := a.exec(ctx, qDeleteJob, e.Key)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			_, err = a.exec(ctx, qJobChange, e.Key, e.Op, from(e), a.stamp())
		}
		return err
	}
	loc, err := time.LoadLocation(in.Zone)
	if err != nil {
		return err
	}
	sched, err := jobs.ParseSchedule(in.Schedule, loc)
	if err != nil {
		return err
	}
	var args []string
	if err := json.Unmarshal(in.Args, &args); err != nil {
		return err
	}
	if err := jobs.CheckArgs(args); err != nil {
		return err // a command this device's agent would not run
	}
	argsText, _ := json.Marshal(args)
	next := sched.Next(a.now).UTC().Truncate(time.Second).Format(time.RFC3339)
	var was jobValue
	var wasArgs string
	switch err := a.queryRow(ctx, qJobByName, e.Key).Scan(&was.Schedule, &was.Zone, &wasArgs, &was.Enabled); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := a.exec(ctx, qInsertJob, e.Key, sched.Spec, loc.String(), string(argsText), in.Enabled,
			next, a.stamp(), a.stamp()); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		fresh := in.Enabled == 1 && was.Enabled == 0
		if _, err := a.exec(ctx, qUpdateJob, sched.Spec, loc.String(), string(argsText), in.Enabled, next,
			fresh, fresh, a.stamp(), e.Key); err != nil {
			return err
		}
	}
	_, err = a.exec(ctx, qJobChange, e.Key, e.Op, from(e)+": "+in.describe(), a.stamp())
	return err
}

func (j jobValue) describe() string {
	var args []string
	json.Unmarshal(j.Args, &args)
	state := "on"
	if j.Enabled == 0 {
		state = "off"
	}
	return fmt.Sprintf("%s (%s): %s, %s", j.Schedule, j.Zone, strings.Join(args, " "), state)
}

// forget records a phrase another device forgot, by its hash, as pending:
// core/forget searches this device for it (ApplyPending) and replaces it as
// a forget does. Recorded, it is never journalled again as this device's
// own (journalled = 1); a row already here (a forget read back) is left.
func (a *applier) forget(ctx context.Context, e Entry) error {
	var v ForgetValue
	if err := json.Unmarshal(e.Value, &v); err != nil {
		return err
	}
	salt, err := hex.DecodeString(v.Salt)
	if err != nil || v.Hash == "" || v.Runes <= 0 {
		return fmt.Errorf("a forget without its hash")
	}
	_, err = a.exec(ctx, qInsertForgotten, e.Key, v.Hash, salt, v.Runes, a.stamp())
	return err
}
