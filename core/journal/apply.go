package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"agent/core/forgotten"
	"agent/core/jobs"
	"agent/core/reminders"
	"agent/memory/errkind"
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

// ExecContext and QueryRowContext make the applier the statedb.Tx the
// owners' ApplyTx write through, each statement prepared once a replay.
func (a *applier) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := a.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (a *applier) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
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

// apply applies one entry once: last writer wins by stamp, and an entry
// that loses is kept in its record's history. An entry its record's owner
// refuses (checked as a change made here is: ErrInvalid or ErrNotFound of
// its owner, or a value that does not decode) is not applied, alone: a
// savepoint takes back what it half did, and refused says why. Any other
// error the owner meets (a busy or full disk, a constraint no check knew)
// says nothing about the line: it is taken back too, left unmarked, and
// deferred says why, so the replay tries it again at the next open.
func (a *applier) apply(ctx context.Context, e Entry, res *Result) (refused, deferred, err error) {
	h := e.HLC.String()
	var one int
	switch err := a.QueryRowContext(ctx, qIsApplied, h).Scan(&one); {
	case err == nil:
		res.Seen++
		return nil, nil, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, nil, err
	}
	var cur string
	if err := a.QueryRowContext(ctx, qClock, e.Kind, e.Key).Scan(&cur); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, err
	}
	wins := e.HLC.wins(cur, a.now)
	if _, err := a.ExecContext(ctx, "SAVEPOINT entry"); err != nil {
		return nil, nil, err
	}
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
			return nil, nil, ctx.Err()
		}
		if _, err := a.ExecContext(ctx, "ROLLBACK TO entry"); err != nil {
			return nil, nil, err
		}
		if !lineAtFault(err) {
			if _, err := a.ExecContext(ctx, "RELEASE entry"); err != nil {
				return nil, nil, err
			}
			return nil, err, nil
		}
		refused = err
	} else if wins {
		if _, err := a.ExecContext(ctx, qSetClock, e.Kind, e.Key, h); err != nil {
			return nil, nil, err
		}
		res.Applied++
	} else {
		res.Lost++
	}
	if _, err := a.ExecContext(ctx, "RELEASE entry"); err != nil {
		return nil, nil, err
	}
	_, err = a.ExecContext(ctx, qMarkApplied, h)
	return refused, nil, err
}

// errUndecodable marks a value that is not what its kind holds.
var errUndecodable = errors.New("a value that does not decode")

// lineAtFault says whether an owner's error is about the line itself: one
// of the kinds a check returns (every owner's ErrInvalid and ErrNotFound is
// one of errkind's; forgotten's is its own) or a value that does not
// decode. Only such a line is refused for good.
func lineAtFault(err error) bool {
	return errors.Is(err, errkind.ErrInvalid) || errors.Is(err, errkind.ErrNotFound) ||
		errors.Is(err, forgotten.ErrInvalid) || errors.Is(err, errUndecodable)
}

// decode reads an entry's value into v; an error says errUndecodable.
func decode(b json.RawMessage, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %w", errUndecodable, err)
	}
	return nil
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
		if err := decode(e.Value, &s); err != nil {
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

func (a *applier) reminder(ctx context.Context, e Entry, wins bool) error {
	in := reminders.Incoming{UID: e.Key, Op: e.Op, Wins: wins, From: from(e), Lost: lostFrom(e)}
	if !tombstone(e.Value) {
		in.Value = new(reminders.Value)
		if err := decode(e.Value, in.Value); err != nil {
			return err
		}
	}
	return reminders.ApplyTx(ctx, a, in, a.now)
}

func (a *applier) job(ctx context.Context, e Entry, wins bool) error {
	in := jobs.Incoming{Name: e.Key, Op: e.Op, Wins: wins, From: from(e), Lost: lostFrom(e)}
	if !tombstone(e.Value) {
		in.Value = new(jobs.Value)
		if err := decode(e.Value, in.Value); err != nil {
			return err
		}
	}
	return jobs.ApplyTx(ctx, a, in, a.now)
}

// forget records a phrase another device forgot, as pending, through the
// forgotten table's owner, which checks it (core/forgotten).
func (a *applier) forget(ctx context.Context, e Entry) error {
	var v forgotten.Value
	if err := decode(e.Value, &v); err != nil {
		return err
	}
	return forgotten.ApplyTx(ctx, a, e.Key, v, a.now)
}
