package jobs

// SQL for jobs.
const (
	qJobColumns = `id, name, schedule, zone, args, enabled, failures, disabled_reason,
		next_at, running_since, last_at, last_status, created_at`

	qInsertJob = `INSERT INTO jobs (name, schedule, zone, args, next_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`

	qJobByName = `SELECT ` + qJobColumns + ` FROM jobs WHERE name = ?`

	qJobs = `SELECT ` + qJobColumns + ` FROM jobs ORDER BY name`

	qDueJobs = `SELECT ` + qJobColumns + ` FROM jobs WHERE enabled = 1 AND next_at <= ? ORDER BY next_at, name`

	qDeleteJob = `DELETE FROM jobs WHERE name = ?`

	// Enabling starts afresh: no failures counted, no deferral carried over
	// from before it was disabled, next due time from now.
	qSetEnabled = `UPDATE jobs SET enabled = ?, failures = 0, disabled_reason = '', deferred_since = NULL, next_at = ?, updated_at = ?
		WHERE name = ?`

	qJobChange = `INSERT INTO job_changes (job_name, action, detail, at) VALUES (?, ?, ?, ?)`

	// The claim of a due job: only the tick whose UPDATE changes the row
	// runs it; next_at moves past now at once, so a missed window runs once.
	// A claim older than the lease belongs to a process that died.
	qClaimDue = `UPDATE jobs SET running_since = ?, next_at = ?, updated_at = ?
		WHERE id = ? AND enabled = 1 AND next_at = ? AND (running_since IS NULL OR running_since < ?)`

	// The claim of `jobs run NAME`: any time, but never beside a running one.
	qClaimNow = `UPDATE jobs SET running_since = ?, updated_at = ?
		WHERE id = ? AND (running_since IS NULL OR running_since < ?)`

	// A run still marked running when its job is claimed again was the
	// claim of a process that died (the claim succeeded: no live process
	// holds the job): it is recorded as failed, and why, not left running
	// forever. (Its exit code is unknown: -1, as for a command that could
	// not run.)
	qLoseRuns = `UPDATE job_runs SET status = 'failed', exit_code = -1, finished_at = ?,
		stderr = 'lost: the process running it ended without recording how (killed, crashed or the machine stopped)'
		WHERE job_name = ? AND status = 'running'`

	qInsertRun = `INSERT INTO job_runs (job_name, trigger, scheduled_at, started_at, status)
		VALUES (?, ?, ?, ?, 'running')`

	qFinishRun = `UPDATE job_runs SET finished_at = ?, status = ?, exit_code = ?, stdout = ?, stderr = ? WHERE id = ?`

	qFinishOK = `UPDATE jobs SET running_since = NULL, failures = 0, last_at = ?, last_status = 'ok', deferred_since = NULL, updated_at = ?
		WHERE id = ?`

	// A deferred tick run gives its due time back, so the next tick retries.
	qFinishDeferred = `UPDATE jobs SET running_since = NULL, next_at = coalesce(?, next_at), last_status = 'deferred',
		deferred_since = coalesce(deferred_since, ?), updated_at = ? WHERE id = ?`

	qFinishFailed = `UPDATE jobs SET running_since = NULL, failures = failures + 1, last_at = ?, last_status = 'failed', deferred_since = NULL, updated_at = ?
		WHERE id = ? RETURNING failures`

	qAutoDisable = `UPDATE jobs SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?`

	// A job's history keeps its newest runs (KeepRuns): a job deferred every
	// minute while Ollama is down would otherwise add 1,440 rows a day.
	qPruneRuns = `DELETE FROM job_runs WHERE job_name = ? AND id <= (
		SELECT id FROM job_runs WHERE job_name = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`

	// Enabled jobs whose every run since the given time was deferred.
	qDeferredJobs = `SELECT name, deferred_since FROM jobs WHERE enabled = 1 AND deferred_since <= ? ORDER BY name`

	qRunColumns = `id, job_name, trigger, coalesce(scheduled_at, ''), started_at, coalesce(finished_at, ''),
		status, exit_code, stdout, stderr`

	qRuns = `SELECT ` + qRunColumns + ` FROM job_runs WHERE (? = '' OR job_name = ?) ORDER BY id DESC LIMIT ?`

	// A job from another device (ApplyTx).
	qEnabledOf       = `SELECT enabled FROM jobs WHERE name = ?`
	qInsertTravelled = `INSERT INTO jobs (name, schedule, zone, args, enabled, next_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	// Turned on or rescheduled from elsewhere, a job starts afresh here as
	// `jobs enable` does: no failures counted, due next from now.
	qUpdateTravelled = `UPDATE jobs SET schedule = ?, zone = ?, args = ?, enabled = ?, next_at = ?,
		failures = CASE WHEN ? THEN 0 ELSE failures END,
		disabled_reason = CASE WHEN ? THEN '' ELSE disabled_reason END, updated_at = ? WHERE name = ?`
)

// SQL for the tick's heartbeat (heartbeat.go).
const (
	qBeat = `INSERT INTO tick_beats (id, beat_at) VALUES (1, ?)
		ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at`
	qTold = `INSERT INTO tick_beats (id, told_at) VALUES (1, ?)
		ON CONFLICT (id) DO UPDATE SET told_at = excluded.told_at`
	qBeats = `SELECT coalesce(beat_at, ''), coalesce(told_at, '') FROM tick_beats WHERE id = 1`
)
