package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/memory"
	"agent/profile"
)

func (a *app) logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "append a timestamped note to today's log (logs/YYYY-MM-DD.md)",
		ArgsUsage: "TEXT|-",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			text, err := a.textArg(cmd, "note")
			if err != nil {
				return err
			}
			return a.runLog(ctx, logOptions{Text: text})
		},
	}
}

type logOptions struct {
	Text string
}

func (a *app) runLog(ctx context.Context, opts logOptions) error {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return err
	}
	res, err := memory.AppendLog(ws.Home, a.now().In(loc), opts.Text)
	if err != nil {
		return err
	}
	return a.reportAppend(res, "")
}

// userLocation is the profile's user.timezone, or the machine's local zone
// when it is unset. A stored value that no longer loads (the profile
// validates on set, so only a hand-edited state.db gets here) is warned
// about, not fatal: the note matters more than its date.
func (a *app) userLocation(ctx context.Context, ws *core.Workspace) (*time.Location, error) {
	tz, ok, err := profile.NewStore(ws.State, a.now).Get(ctx, "user.timezone")
	if err != nil || !ok {
		return time.Local, err
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		a.warnf("user.timezone %q is not a known time zone; using local time (fix: agent profile set user.timezone Area/City)", tz)
		return time.Local, nil
	}
	return loc, nil
}
