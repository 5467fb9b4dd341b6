package core

import (
	"context"
	"fmt"
	"time"

	"agent/core/jobs"
	"agent/core/reminders"
	"agent/memory/printable"
)

// TickMissing says why the workspace's reminders and jobs would not fire on
// time: some are waiting and nothing runs `agent jobs tick` (no recent
// tick, no installed timer). why is "" when they fire or nothing waits;
// told says the user has already heard it from `remind`.
func TickMissing(ctx context.Context, ws *Workspace, now func() time.Time) (why string, told bool, err error) {
	st := jobs.NewStore(ws.State, now)
	ticking, err := st.Ticking(ctx, ws.Home)
	if err != nil || ticking.Runs {
		return "", ticking.Told, err
	}
	pending, err := reminders.NewStore(ws.State, now).Pending(ctx)
	if err != nil {
		return "", false, err
	}
	all, err := st.List(ctx)
	if err != nil {
		return "", false, err
	}
	enabled := 0
	for _, j := range all {
		if j.Enabled {
			enabled++
		}
	}
	var waiting string
	switch {
	case len(pending) > 0 && enabled > 0:
		waiting = fmt.Sprintf("%s and %s", counted(len(pending), "pending reminder"), counted(enabled, "enabled job"))
	case len(pending) > 0:
		waiting = counted(len(pending), "pending reminder")
	case enabled > 0:
		waiting = counted(enabled, "enabled job")
	default:
		return "", ticking.Told, nil
	}
	return waiting + ", but nothing runs `agent jobs tick` here: they will not fire on time, only show when you chat", ticking.Told, nil
}

// MarkTickTold records that `remind` told the user nothing runs the tick.
func MarkTickTold(ctx context.Context, ws *Workspace, now func() time.Time) error {
	return jobs.NewStore(ws.State, now).Told(ctx)
}

// counted says n things: "1 pending reminder", "2 pending reminders".
func counted(n int, what string) string {
	return printable.Count(n, what, what+"s")
}
