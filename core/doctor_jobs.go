package core

import (
	"context"

	"agent/core/jobs"
)

// DoctorJobs is the "jobs" line of `agent doctor`: it fails when failures in
// a row have disabled a job, naming the job, why, and how to turn it back
// on. Only a workspace whose state.db opens is checked.
func DoctorJobs(ctx context.Context, home string) DoctorCheck {
	c := DoctorCheck{Name: "jobs"}
	ws, ok := doctorOpen(ctx, home, &c)
	if !ok {
		return c
	}
	defer ws.Close()
	ok, detail, fix, err := jobs.Health(ctx, ws.State)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	c.OK, c.Detail, c.Fix = ok, detail, fix
	return c
}

// doctorOpen opens the workspace for a check that reads state.db; when it
// cannot, it fills c with why (the state.db line has the details).
func doctorOpen(ctx context.Context, home string, c *DoctorCheck) (*Workspace, bool) {
	ws, err := Open(ctx, home)
	if err != nil {
		c.Detail, c.Fix = "not checked: "+err.Error(), "agent doctor (see the state.db line)"
		return nil, false
	}
	return ws, true
}
