package main

import (
	"context"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/index/timewords"
	"agent/memory"
	"agent/profile"
)

func (a *app) logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "append a timestamped note to today's log (logs/YYYY-MM-DD.md), or with --date to another day's",
		ArgsUsage: "TEXT|-",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "date", Usage: "the day the note is about: YYYY-MM-DD, or yesterday, last Saturday, …, in your zone"},
			&cli.StringFlag{Name: "at", Usage: "with --date: the time of day it happened, HH:MM"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.IsSet("at") && !cmd.IsSet("date") {
				return usagef("--at goes with --date (today's notes take the time they are written)")
			}
			var clock *time.Time
			if cmd.IsSet("at") {
				t, err := time.Parse("15:04", cmd.String("at"))
				if err != nil {
					return usagef("--at %q: want HH:MM, e.g. --at 19:30", cmd.String("at"))
				}
				clock = &t
			}
			text, err := a.textArg(cmd, "note")
			if err != nil {
				return err
			}
			return a.runLog(ctx, logOptions{Text: text, Date: cmd.String("date"), At: clock})
		},
	}
}

type logOptions struct {
	Text string
	Date string     // --date: "" for today
	At   *time.Time // --at: the clock of a past entry; nil for none
}

// pastDay reads --date in the user's zone: a date, or a phrase naming one
// day ("yesterday", "last Saturday", timewords.Find).
func pastDay(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return d, nil
	}
	if sp, ok := timewords.Find(s, now); ok && sp.From == sp.To && strings.TrimSpace(sp.Without(s)) == "" {
		return time.ParseInLocation(time.DateOnly, sp.From, now.Location())
	}
	return time.Time{}, usagef("--date %q: want YYYY-MM-DD or a day such as yesterday or last Saturday", s)
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
	now := a.now().In(loc)
	var res memory.AppendResult
	switch {
	case opts.Date == "":
		res, err = memory.AppendLog(ws.Home, now, opts.Text)
	default:
		// A past entry is appended to its day's log like any other, in the
		// order written, under the time it happened (--at) or the time it
		// was written (docs/decisions-memory-write.md, "Past entries").
		var day time.Time
		if day, err = pastDay(opts.Date, now); err != nil {
			return err
		}
		heading := "added " + now.Format("2006-01-02 15:04")
		if opts.At != nil {
			heading = opts.At.Format("15:04")
		}
		res, err = memory.AppendLogEntry(ws.Home, day, heading, opts.Text)
	}
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
