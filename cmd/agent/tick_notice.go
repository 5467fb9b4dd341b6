package main

import (
	"context"

	"agent/core"
	"agent/core/jobs"
)

// tellTickMissing says, once per workspace, that nothing runs `agent jobs
// tick`, so the reminder just set will not fire on time, with the one
// command that fixes it; doctor's jobs line keeps saying it after that.
// The workspace is opened again: withReminders hands out only the store.
func (a *app) tellTickMissing(ctx context.Context) {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return // the reminder is set; this is only advice
	}
	defer ws.Close()
	why, told, err := core.TickMissing(ctx, ws, a.now)
	if err != nil || why == "" || told {
		return
	}
	a.warnf("%s; to have them fire, run: %s", why, a.withHome(jobs.TickFix()))
	if err := core.MarkTickTold(ctx, ws, a.now); err != nil {
		a.warnf("remember that this was said: %v", err)
	}
}
