package core

import (
	"context"
	"time"

	"agent/core/jobs"
)

// DoctorJobs is the "jobs" line of `agent doctor`: it fails when failures in
// a row have disabled a job, naming the job, why, and how to turn it back
// on. It reads the state.db of ws, which Doctor opened.
func DoctorJobs(ctx context.Context, ws *Workspace) DoctorCheck {
	c := DoctorCheck{Name: "jobs"}
	ok, detail, fix, err := jobs.Health(ctx, ws.State, time.Now().In(WorkspaceZone(ctx, ws)))
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	c.OK, c.Detail, c.Fix = ok, detail, fix
	if !ok {
		return c
	}
	// Healthy jobs that nothing runs are not healthy: a reminder due at
	// 10:46 stayed silent while this line said ok.
	why, _, err := TickMissing(ctx, ws, time.Now)
	if err != nil {
		c.OK, c.Detail = false, err.Error()
		return c
	}
	if why != "" {
		c.OK, c.Detail, c.Fix = false, why, jobs.TickFix()
	}
	return c
}
