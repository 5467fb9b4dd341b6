// Package jobs keeps scheduled jobs in state.db and runs the due ones when
// `agent jobs tick` is called by the system's scheduler (cron, a systemd
// user timer): there is no daemon. A job is one of the agent's own commands,
// run as the agent's own binary, never a shell line.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxFailures failed runs in a row disable a job.
const MaxFailures = 5

// Job is one row of jobs.
type Job struct {
	ID             int64
	Name           string
	Schedule       Schedule
	Args           []string
	Enabled        bool
	Failures       int
	DisabledReason string
	NextAt         time.Time
	RunningSince   *time.Time
	LastAt         *time.Time
	LastStatus     string
	CreatedAt      time.Time
}

// Store reads and writes jobs. The db must use immediate write transactions
// (core opens state.db so), so concurrent ticks queue instead of deadlocking.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// NewStore returns a Store over state.db; now is the clock (time.Now if nil).
func NewStore(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// validName is a job name's alphabet, compiled on first use; its length (at
// most 40) is checked apart, as a bounded repeat {0,39} compiles into 39
// copies of the class.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })

// agentCommands are the commands a job may run: the agent's own, and only
// those that make sense unattended. Anything else is refused at add.
var agentCommands = [][]string{
	{"chat"},
	{"log"},
	{"memory", "add"},
	{"memory", "distill"},
	{"memory", "reindex"},
	{"sync"}, // every device shares one memory (docs/cli-sync.md)
}

// CheckArgs refuses anything but one of the agent's own commands: the first
// words must name one of agentCommands, and --home is the tick's to give.
func CheckArgs(args []string) error {
	allowed := make([]string, len(agentCommands))
	for i, c := range agentCommands {
		allowed[i] = strings.Join(c, " ")
	}
	refuse := func(why string) error {
		return invalidf("%s: a job runs one of the agent's own commands (%s), e.g. -- memory reindex", why, strings.Join(allowed, ", "))
	}
	if len(args) == 0 {
		return refuse("no command after --")
	}
	var ok bool
	for _, c := range agentCommands {
		if len(args) >= len(c) && slices.Equal(args[:len(c)], c) {
			ok = true
		}
	}
	if !ok {
		return refuse(fmt.Sprintf("%q is not an agent command a job may run", strings.Join(args, " ")))
	}
	for _, a := range args {
		if a == "--home" || strings.HasPrefix(a, "--home=") || a == "-home" || strings.HasPrefix(a, "-home=") {
			return invalidf("a job runs in the workspace of the tick that runs it: drop %s", a)
		}
	}
	return nil
}

// Add stores a new, enabled job, first due at its schedule's next time
// after now.
func (s *Store) Add(ctx context.Context, name, spec string, loc *time.Location, args []string) (Job, error) {
	c, err := check(name, spec, loc, args)
	if err != nil {
		return Job{}, err
	}
	sched := c.sched
	argsJSON, _ := json.Marshal(args)
	now := s.now()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Job{}, fmt.Errorf("add job %s: %w", name, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE name = ?`, name).Scan(&n); err != nil {
		return Job{}, fmt.Errorf("add job %s: %w", name, err)
	}
	if n > 0 {
		return Job{}, invalidf("a job named %s exists (see: agent jobs show %s; remove it first to replace it)", name, name)
	}
	if _, err := tx.ExecContext(ctx, qInsertJob, name, sched.Spec, loc.String(), string(argsJSON),
		stamp(sched.Next(now)), stamp(now), stamp(now)); err != nil {
		return Job{}, fmt.Errorf("add job %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, qJobChange, name, "add", sched.Spec+" ("+loc.String()+"): "+strings.Join(args, " "), stamp(now)); err != nil {
		return Job{}, fmt.Errorf("add job %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return Job{}, fmt.Errorf("add job %s: %w", name, err)
	}
	return s.Get(ctx, name)
}

// Get returns the named job.
func (s *Store) Get(ctx context.Context, name string) (Job, error) {
	list, err := s.query(ctx, qJobByName, name)
	if err != nil {
		return Job{}, err
	}
	if len(list) == 0 {
		return Job{}, notFoundf("no job named %s (see: agent jobs list)", name)
	}
	return list[0], nil
}

// List returns every job by name.
func (s *Store) List(ctx context.Context) ([]Job, error) { return s.query(ctx, qJobs) }

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("read jobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	return out, nil
}

func scanJob(rows *sql.Rows) (Job, error) {
	var j Job
	var spec, zone, args, next, created string
	var running, last sql.NullString
	if err := rows.Scan(&j.ID, &j.Name, &spec, &zone, &args, &j.Enabled, &j.Failures, &j.DisabledReason,
		&next, &running, &last, &j.LastStatus, &created); err != nil {
		return j, err
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return j, fmt.Errorf("job %s: zone %q: %w", j.Name, zone, err)
	}
	if j.Schedule, err = ParseSchedule(spec, loc); err != nil {
		return j, fmt.Errorf("job %s: %w", j.Name, err)
	}
	if err := json.Unmarshal([]byte(args), &j.Args); err != nil {
		return j, fmt.Errorf("job %s: args: %w", j.Name, err)
	}
	if j.NextAt, err = time.Parse(time.RFC3339, next); err != nil {
		return j, err
	}
	if j.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
		return j, err
	}
	for _, p := range []struct {
		s   sql.NullString
		dst **time.Time
	}{{running, &j.RunningSince}, {last, &j.LastAt}} {
		if p.s.Valid {
			t, err := time.Parse(time.RFC3339, p.s.String)
			if err != nil {
				return j, err
			}
			*p.dst = &t
		}
	}
	return j, nil
}

// Remove deletes the named job; its runs stay in the history.
func (s *Store) Remove(ctx context.Context, name string) error {
	return s.update(ctx, name, "remove", "", qDeleteJob, name)
}

// SetEnabled turns a job on or off. Enabling clears the failure count and
// makes it due at its schedule's next time from now, not at a window it
// missed while off.
func (s *Store) SetEnabled(ctx context.Context, name string, on bool) (Job, error) {
	j, err := s.Get(ctx, name)
	if err != nil {
		return j, err
	}
	action := "disable"
	if on {
		action = "enable"
	}
	now := s.now()
	if err := s.update(ctx, name, action, "", qSetEnabled, on, stamp(j.Schedule.Next(now)), stamp(now), name); err != nil {
		return j, err
	}
	return s.Get(ctx, name)
}

// update runs one statement on a named job and records the change, in one
// transaction.
func (s *Store) update(ctx context.Context, name, action, detail, q string, args ...any) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s job %s: %w", action, name, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("%s job %s: %w", action, name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFoundf("no job named %s (see: agent jobs list)", name)
	}
	if _, err := tx.ExecContext(ctx, qJobChange, name, action, detail, stamp(s.now())); err != nil {
		return fmt.Errorf("%s job %s: %w", action, name, err)
	}
	return tx.Commit()
}

// Run is one entry of a job's history.
type Run struct {
	ID          int64
	Job         string
	Trigger     string // "tick" or "run"
	ScheduledAt string // the due time a tick ran it for; "" for `jobs run`
	StartedAt   string
	FinishedAt  string // "" while running
	Status      string // running, ok, failed, deferred
	ExitCode    *int
	Stdout      string
	Stderr      string
}

// Runs returns the latest runs, newest first: of one job, or of all when
// name is "".
func (s *Store) Runs(ctx context.Context, name string, limit int) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, qRuns, name, name, limit)
	if err != nil {
		return nil, fmt.Errorf("read job history: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var code sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Job, &r.Trigger, &r.ScheduledAt, &r.StartedAt, &r.FinishedAt,
			&r.Status, &code, &r.Stdout, &r.Stderr); err != nil {
			return nil, fmt.Errorf("read job history: %w", err)
		}
		if code.Valid {
			c := int(code.Int64)
			r.ExitCode = &c
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
