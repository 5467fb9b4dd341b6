package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"agent/memory/printable"
)

// Lease and timeout of a run: a run is stopped after RunTimeout, so a claim
// older than claimLease can only belong to a process that died mid-run.
const (
	RunTimeout = 50 * time.Minute
	claimLease = time.Hour
)

// ExitUnavailable is the agent's exit code for "the model is unavailable";
// a run ending with it is deferred, not failed.
const ExitUnavailable = 4

// maxOutput bounds what a run keeps of each stream in the history.
const maxOutput = 64 << 10

// Result is what running a job's command gave: its exit code (0 ok) and its
// two streams. Err is for a command that could not be started at all.
type Result struct {
	ExitCode       int
	Stdout, Stderr string
	Err            error
}

// Runner runs the agent's own binary with args (the stored ones; the runner
// adds the workspace). Tests inject a fake.
type Runner func(ctx context.Context, args []string) Result

// Outcome is what a tick or `jobs run` did with one job.
type Outcome struct {
	Job      string
	RunID    int64
	Status   string // ok, failed, deferred
	ExitCode int
	Stdout   string
	Stderr   string
	// Disabled is set when this failure was the MaxFailures-th in a row and
	// the job is now off; DisabledReason says why.
	Disabled       bool
	DisabledReason string
	// LogErr is set when the run could not be appended to the daily log.
	LogErr error
}

// Ticker runs due jobs. Log appends a run's output to the daily log of at
// under heading; Loc is the user's zone for that log's date and the heading.
type Ticker struct {
	Store *Store
	Run   Runner
	Log   func(at time.Time, heading, body string) error
	Loc   *time.Location
}

// Tick runs every enabled job that is due now, one after another, and
// returns what each did. A job is claimed first by a conditional UPDATE
// that moves its next due time past now: a window missed while the machine
// was off runs once, and a tick running beside this one skips it.
func (t *Ticker) Tick(ctx context.Context) ([]Outcome, error) {
	now := t.Store.now()
	due, err := t.Store.query(ctx, qDueJobs, stamp(now))
	if err != nil {
		return nil, err
	}
	var out []Outcome
	for _, j := range due {
		runID, ok, err := t.claim(ctx, j, now, true)
		if err != nil {
			return out, err
		}
		if !ok {
			continue
		}
		o, err := t.execute(ctx, j, runID, &j.NextAt)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
	return out, nil
}

// RunNow runs the named job at once, enabled or not, without moving its
// schedule; it refuses while another process is running the same job.
func (t *Ticker) RunNow(ctx context.Context, name string) (Outcome, error) {
	j, err := t.Store.Get(ctx, name)
	if err != nil {
		return Outcome{}, err
	}
	runID, ok, err := t.claim(ctx, j, t.Store.now(), false)
	if err != nil {
		return Outcome{}, err
	}
	if !ok {
		return Outcome{}, fmt.Errorf("job %s is running in another process; see: agent jobs history %s", name, name)
	}
	return t.execute(ctx, j, runID, nil)
}

// claim takes the job for this process and records the run as started, in
// one transaction; ok is false when another process has it.
func (t *Ticker) claim(ctx context.Context, j Job, now time.Time, scheduled bool) (int64, bool, error) {
	tx, err := t.Store.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("claim job %s: %w", j.Name, err)
	}
	defer tx.Rollback()
	stale := stamp(now.Add(-claimLease))
	var res sql.Result
	var scheduledAt any
	trigger := "run"
	if scheduled {
		trigger, scheduledAt = "tick", stamp(j.NextAt)
		res, err = tx.ExecContext(ctx, qClaimDue, stamp(now), stamp(j.Schedule.Next(now)), stamp(now), j.ID, stamp(j.NextAt), stale)
	} else {
		res, err = tx.ExecContext(ctx, qClaimNow, stamp(now), stamp(now), j.ID, stale)
	}
	if err != nil {
		return 0, false, fmt.Errorf("claim job %s: %w", j.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	if _, err := tx.ExecContext(ctx, qLoseRuns, stamp(now), j.Name); err != nil {
		return 0, false, fmt.Errorf("claim job %s: %w", j.Name, err)
	}
	ins, err := tx.ExecContext(ctx, qInsertRun, j.Name, trigger, scheduledAt, stamp(now))
	if err != nil {
		return 0, false, fmt.Errorf("claim job %s: %w", j.Name, err)
	}
	id, err := ins.LastInsertId()
	if err != nil {
		return 0, false, err
	}
	return id, true, tx.Commit()
}

// execute runs a claimed job and records how it ended. dueAt is the due
// time a tick claimed it for, given back when the run is deferred.
func (t *Ticker) execute(ctx context.Context, j Job, runID int64, dueAt *time.Time) (Outcome, error) {
	started := t.Store.now().In(t.Loc)
	runCtx, cancel := context.WithTimeout(ctx, RunTimeout)
	res := t.Run(runCtx, j.Args)
	cancel()
	o := Outcome{Job: j.Name, RunID: runID, ExitCode: res.ExitCode, Stdout: clip(res.Stdout), Stderr: clip(res.Stderr)}
	if res.Err != nil {
		o.ExitCode = -1
		o.Stderr = strings.TrimSpace(o.Stderr + "\n" + res.Err.Error())
	}
	switch {
	case o.ExitCode == 0:
		o.Status = "ok"
	case o.ExitCode == ExitUnavailable:
		o.Status = "deferred"
	default:
		o.Status = "failed"
	}
	if o.Status != "deferred" && t.Log != nil {
		o.LogErr = t.Log(started, started.Format("15:04")+" job "+j.Name, logBody(o))
	}
	// The outcome is recorded even when ctx was cancelled meanwhile, so a
	// claim is never left behind by an interrupted tick.
	return t.finish(context.WithoutCancel(ctx), j, o, dueAt)
}

func (t *Ticker) finish(ctx context.Context, j Job, o Outcome, dueAt *time.Time) (Outcome, error) {
	now := stamp(t.Store.now())
	tx, err := t.Store.db.BeginTx(ctx, nil)
	if err != nil {
		return o, fmt.Errorf("record run of job %s: %w", j.Name, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, qFinishRun, now, o.Status, o.ExitCode, o.Stdout, o.Stderr, o.RunID); err != nil {
		return o, fmt.Errorf("record run of job %s: %w", j.Name, err)
	}
	switch o.Status {
	case "ok":
		_, err = tx.ExecContext(ctx, qFinishOK, now, now, j.ID)
	case "deferred":
		var back any
		if dueAt != nil {
			back = stamp(*dueAt)
		}
		_, err = tx.ExecContext(ctx, qFinishDeferred, back, now, now, j.ID)
	default:
		var failures int
		if err = tx.QueryRowContext(ctx, qFinishFailed, now, now, j.ID).Scan(&failures); err == nil && failures >= MaxFailures {
			o.Disabled = true
			o.DisabledReason = fmt.Sprintf("disabled after %d failures in a row (last: %s)", failures, failureSummary(o))
			if _, err = tx.ExecContext(ctx, qAutoDisable, o.DisabledReason, now, j.ID); err == nil {
				_, err = tx.ExecContext(ctx, qJobChange, j.Name, "auto-disable", o.DisabledReason, now)
			}
		}
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, qPruneRuns, j.Name, j.Name, KeepRuns)
	}
	if err != nil {
		return o, fmt.Errorf("record run of job %s: %w", j.Name, err)
	}
	return o, tx.Commit()
}

// failureSummary is "exit N: the first line of what it said".
func failureSummary(o Outcome) string {
	line := strings.TrimSpace(o.Stderr)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimPrefix(line, "agent: ")
	line = printable.Cut(line, 100)
	if line == "" {
		return fmt.Sprintf("exit %d", o.ExitCode)
	}
	return fmt.Sprintf("exit %d: %s", o.ExitCode, line)
}

// logBody is what the daily log keeps of a run: what the command printed,
// and on failure what it said went wrong.
func logBody(o Outcome) string {
	out := strings.TrimSpace(o.Stdout)
	if o.Status == "ok" {
		if out == "" {
			return "done (no output)"
		}
		return out
	}
	body := "failed: " + failureSummary(o)
	if out != "" {
		body += "\n\n" + out
	}
	return body
}

// clip keeps at most maxOutput bytes of a stream, cut before a character
// rather than inside one (the history is shown and sent as text).
func clip(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	end := maxOutput
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "\n… (cut)"
}
