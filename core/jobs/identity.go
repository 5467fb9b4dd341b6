package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"agent/core/when"
	"agent/memory/printable"
)

// identityArgsRunes bounds a job's command in its identity line (the
// identity section keeps a few such lines: core/identity_sources.go).
const identityArgsRunes = 60

// Identity are the scheduled jobs as the identity section shows them, one
// line each: every enabled job with its schedule in words ("memory
// distill: weekly, Mon 03:00 Europe/Berlin (job distill)"), then every job
// that failures disabled, by name; all of them, so that a caller that shows
// a few knows how many more there are. They depend only on the jobs'
// definitions and enabled state, not on when they last ran, so they stay
// byte-identical between changes.
func Identity(ctx context.Context, db *sql.DB) ([]string, error) {
	all, err := NewStore(db, nil).List(ctx)
	if err != nil {
		return nil, err
	}
	var enabled, broken []string
	for _, j := range all {
		cmd := printable.Cut(strings.Join(j.Args, " "), identityArgsRunes)
		switch {
		case j.Enabled:
			enabled = append(enabled, fmt.Sprintf("%s: %s (job %s)", cmd, j.Schedule.Words(), j.Name))
		case j.DisabledReason != "":
			broken = append(broken, fmt.Sprintf("%s (job %s): %s; the user can re-enable it with: agent jobs enable %s", cmd, j.Name, j.DisabledReason, j.Name))
		}
	}
	return append(enabled, broken...), nil
}

// KeepRuns is how many runs of each job the history keeps, newest first.
const KeepRuns = 100

// DeferredFor is how long every run of a job may be deferred (Ollama or the
// model unavailable) before doctor names it: a laptop that sleeps through a
// job's window is normal, a job that has not run for an hour is news.
const DeferredFor = time.Hour

// Health is the `agent doctor` verdict on jobs at now: ok unless failures
// disabled a job or every run of one has been deferred for DeferredFor;
// detail says what is scheduled or which job is stuck, fix what to run.
func Health(ctx context.Context, db *sql.DB, now time.Time) (ok bool, detail, fix string, err error) {
	all, err := NewStore(db, nil).List(ctx)
	if err != nil {
		return false, "", "", err
	}
	var on int
	var broken []string
	for _, j := range all {
		if j.Enabled {
			on++
		} else if j.DisabledReason != "" {
			broken = append(broken, j.Name+" "+j.DisabledReason)
		}
	}
	deferred, err := deferredJobs(ctx, db, now)
	if err != nil {
		return false, "", "", err
	}
	// A disabled job and a stuck one are both news: neither hides the other.
	var problems, fixes []string
	if len(broken) > 0 {
		name := strings.Fields(broken[0])[0]
		problems = append(problems, "job "+strings.Join(broken, "; job "))
		fixes = append(fixes, fmt.Sprintf("agent jobs history %s, fix the cause, then: agent jobs enable %s", name, name))
	}
	if len(deferred) > 0 {
		problems = append(problems, deferred...)
		fixes = append(fixes, "see the ollama and model lines of agent doctor; once they are ok the next tick runs it (its runs: agent jobs history)")
	}
	if len(problems) > 0 {
		return false, strings.Join(problems, "; "), strings.Join(fixes, "; "), nil
	}
	noun := "jobs"
	if len(all) == 1 {
		noun = "job"
	}
	return true, fmt.Sprintf("%d %s, %d enabled", len(all), noun, on), "", nil
}

// deferredJobs describes the enabled jobs whose every run has been deferred
// for DeferredFor or longer at now.
func deferredJobs(ctx context.Context, db *sql.DB, now time.Time) ([]string, error) {
	rows, err := db.QueryContext(ctx, qDeferredJobs, stamp(now.Add(-DeferredFor)))
	if err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, since string
		if err := rows.Scan(&name, &since); err != nil {
			return nil, fmt.Errorf("read jobs: %w", err)
		}
		if t, err := time.Parse(time.RFC3339, since); err == nil {
			since = when.Format(t, now.Location()) // now is in the user's zone
		}
		out = append(out, fmt.Sprintf("job %s: every run deferred since %s (Ollama or the model unavailable)", name, since))
	}
	return out, rows.Err()
}
