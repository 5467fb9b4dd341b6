package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agent/core/statedb"
	"agent/memory/printable"
)

// Value is a job as it travels between devices (core/journal): what the
// user chose, not its run state (next_at, failures, claims are this
// machine's). journal's trigger writes it with json_object under the same
// names (journal/migrations/0001_init.sql).
type Value struct {
	Schedule string          `json:"schedule"`
	Zone     string          `json:"zone"`
	Args     json.RawMessage `json:"args"`
	Enabled  int             `json:"enabled"`
}

// Incoming is a change to a job another device made.
type Incoming struct {
	Name  string
	Op    string // add, edit, enable, disable, remove
	Value *Value // nil: removed there
	// Wins says the change is newer than the one that set this device's
	// job; one that loses is kept in the job's history only.
	Wins bool
	From string // who, for the history: "sync from HOST"
	Lost string // the same for a change that lost
}

// checked is a job that passed the rules of Add.
type checked struct {
	sched Schedule
	args  []string
}

// check is the rule every job is held to, made here (Add) or elsewhere
// (ApplyTx): a name of its alphabet, a schedule this package reads (no
// "every" under a minute), a zone that is an IANA name, and one of the
// agent's own commands (CheckArgs).
func check(name, spec string, loc *time.Location, args []string) (checked, error) {
	if err := checkName(name); err != nil {
		return checked{}, err
	}
	sched, err := ParseSchedule(spec, loc)
	if err != nil {
		return checked{}, err
	}
	if err := CheckArgs(args); err != nil {
		return checked{}, err
	}
	return checked{sched: sched, args: args}, nil
}

func checkName(name string) error {
	if len(name) > 40 || !validName().MatchString(name) {
		return invalidf("job name %q: use letters, digits, '-', '_' or '.', at most 40, starting with a letter or digit", printable.Escape(name))
	}
	return nil
}

// check reads and checks a job from elsewhere: its zone an IANA name or
// Local (what `jobs add` stores without user.timezone), then the rules
// of Add (check).
func (v Value) check(name string) (checked, error) {
	if v.Zone == "" {
		return checked{}, invalidf("job %s: no time zone", printable.Escape(name))
	}
	loc, err := time.LoadLocation(v.Zone)
	if err != nil {
		return checked{}, invalidf("job %s: %q is not a time zone", printable.Escape(name), printable.Escape(v.Zone))
	}
	var args []string
	if err := json.Unmarshal(v.Args, &args); err != nil {
		return checked{}, invalidf("job %s: its command is not a list of words", printable.Escape(name))
	}
	if v.Enabled != 0 && v.Enabled != 1 {
		return checked{}, invalidf("job %s: enabled is %d, not 0 or 1", printable.Escape(name), v.Enabled)
	}
	return check(name, v.Schedule, loc, args)
}

func (v Value) describe(c checked) string {
	state := "on"
	if v.Enabled == 0 {
		state = "off"
	}
	return fmt.Sprintf("%s (%s): %s, %s", c.sched.Spec, c.sched.Loc, strings.Join(c.args, " "), state)
}

// ApplyTx applies a change another device made to a job, in the replay's
// transaction tx, at now: checked as `jobs add` checks a job (ErrInvalid,
// nothing written: a job from elsewhere runs only what this device would
// accept), then written and recorded in job_changes. It is the only code
// that writes a job from elsewhere. A job turned on or rescheduled from
// elsewhere starts afresh here, as `jobs enable` does.
func ApplyTx(ctx context.Context, tx statedb.Tx, in Incoming, now time.Time) error {
	if err := checkName(in.Name); err != nil {
		return err
	}
	var c checked
	if in.Value != nil {
		var err error
		if c, err = in.Value.check(in.Name); err != nil {
			return err
		}
	}
	at := stamp(now)
	if !in.Wins {
		detail := "removed"
		if in.Value != nil {
			detail = in.Value.describe(c)
		}
		_, err := tx.ExecContext(ctx, qJobChange, in.Name, "lost: "+in.Op, in.Lost+": "+detail, at)
		return err
	}
	if in.Value == nil {
		res, err := tx.ExecContext(ctx, qDeleteJob, in.Name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			_, err = tx.ExecContext(ctx, qJobChange, in.Name, in.Op, in.From, at)
		}
		return err
	}
	argsText, _ := json.Marshal(c.args)
	next := stamp(c.sched.Next(now))
	var was int
	switch err := tx.QueryRowContext(ctx, qEnabledOf, in.Name).Scan(&was); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, qInsertTravelled, in.Name, c.sched.Spec, c.sched.Loc.String(), string(argsText),
			in.Value.Enabled, next, at, at); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		fresh := in.Value.Enabled == 1 && was == 0
		if _, err := tx.ExecContext(ctx, qUpdateTravelled, c.sched.Spec, c.sched.Loc.String(), string(argsText),
			in.Value.Enabled, next, fresh, fresh, at, in.Name); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, qJobChange, in.Name, in.Op, in.From+": "+in.Value.describe(c), at)
	return err
}
