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

// userLocation is the profile's user.timezone as core.UserZone resolves it.
func (a *app) userLocation(ctx context.Context, ws *core.Workspace) (*time.Location, error) {
	tz, _, err := profile.NewStore(ws.State, a.now).Get(ctx, "user.timezone")
	if err != nil {
		return time.Local, err
	}
	loc, _ := core.UserZone(tz, func(w string) { a.warnf("%s", w) })
	return loc, nil
}
