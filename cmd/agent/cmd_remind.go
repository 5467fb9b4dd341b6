package main

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/reminders"
	"agent/memory/printable"
)

func (a *app) remindCommand() *cli.Command {
	return &cli.Command{
		Name:      "remind",
		Usage:     "set a reminder: agent remind TEXT --at WHEN (\"tomorrow 9:00\", \"fri 18:00\", +2h, 2026-12-04T18:00)",
		ArgsUsage: "TEXT|-",
		// --at is checked here, not by the flag parser, so a missing one is
		// told with an example rather than as `required flag "at" not set`.
		Flags: []cli.Flag{&cli.StringFlag{Name: "at", Usage: "when, in user.timezone (required)"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			text, err := a.textArg(cmd, "reminder")
			if err != nil {
				return err
			}
			atGiven := strings.TrimSpace(cmd.String("at")) != ""
			if !atGiven && cmd.Args().First() == "-" {
				return usagef("remind needs --at WHEN, e.g.: agent remind %s --at +1h (or \"tomorrow 9:00\", \"fri 18:00\")", exampleWords(text, "call mom"))
			}
			return a.withReminders(ctx, func(st *reminders.Store, loc *time.Location) error {
				var due time.Time
				var err error
				if atGiven {
					due, err = reminders.Parse(cmd.String("at"), a.now(), loc)
				} else {
					text, err = a.trailingTime(text, &due, loc)
				}
				if err != nil {
					return err
				}
				a.redact("reminder", &text)
				r, err := st.Add(ctx, text, due, reminders.ByUser)
				if err != nil {
					return err
				}
				a.infof("reminder %d set for %s", r.ID, reminders.Format(r.DueAt, loc))
				a.tellTickMissing(ctx)
				if a.io.OutTTY && !a.jsonOut {
					return nil // the line above says it all; a one-row table would repeat it
				}
				return a.printReminders([]reminders.Reminder{r}, loc)
			})
		},
	}
}

func (a *app) remindersCommand() *cli.Command {
	list := func(ctx context.Context, cmd *cli.Command) error {
		if cmd.Args().Present() {
			return unknownCommand(cmd, cmd.Args().First())
		}
		return a.withRemindersFrom(ctx, a.openForReading, func(st *reminders.Store, loc *time.Location) error {
			var list []reminders.Reminder
			var err error
			if cmd.Bool("all") {
				list, err = st.All(ctx)
			} else {
				list, err = st.Pending(ctx)
			}
			if err != nil {
				return err
			}
			if len(list) == 0 && !a.jsonOut {
				a.infof("no pending reminders (set one with: agent remind TEXT --at WHEN)")
			}
			return a.printReminders(list, loc)
		})
	}
	allFlag := &cli.BoolFlag{Name: "all", Usage: "include done and removed reminders"}
	change := func(nargs int, argsUsage string, do func(ctx context.Context, st *reminders.Store, loc *time.Location, id int64, args []string) (reminders.Reminder, error)) cli.ActionFunc {
		return func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != nargs {
				return usagef("usage: %s %s", cmd.FullName(), argsUsage)
			}
			id, err := strconv.ParseInt(cmd.Args().First(), 10, 64)
			if err != nil || id <= 0 {
				return usagef("%q is not a reminder ID (see: agent reminders list)", cmd.Args().First())
			}
			return a.withReminders(ctx, func(st *reminders.Store, loc *time.Location) error {
				r, err := do(ctx, st, loc, id, cmd.Args().Slice()[1:])
				if err != nil {
					return err
				}
				return a.printReminders([]reminders.Reminder{r}, loc)
			})
		}
	}
	return &cli.Command{
		Name:   "reminders",
		Usage:  "pending reminders: list (default), done ID, snooze ID WHEN, remove ID",
		Flags:  []cli.Flag{allFlag},
		Action: list,
		Commands: []*cli.Command{
			{Name: "list", Usage: "pending reminders, most urgent first", Flags: []cli.Flag{allFlag}, Action: list},
			{Name: "done", Usage: "mark a reminder done", ArgsUsage: "ID",
				Action: change(1, "ID", func(ctx context.Context, st *reminders.Store, _ *time.Location, id int64, _ []string) (reminders.Reminder, error) {
					return st.Done(ctx, id, "reminders done")
				})},
			{Name: "snooze", Usage: "move a reminder to a new time", ArgsUsage: "ID WHEN",
				Action: change(2, "ID WHEN", func(ctx context.Context, st *reminders.Store, loc *time.Location, id int64, args []string) (reminders.Reminder, error) {
					r, err := st.Get(ctx, id)
					if err != nil {
						return reminders.Reminder{}, err
					}
					due, err := reminders.ParseSnooze(args[0], a.now(), r.DueAt, loc)
					if err != nil {
						return reminders.Reminder{}, err
					}
					return st.Snooze(ctx, id, due, "reminders snooze")
				})},
			{Name: "remove", Usage: "take a reminder off the list (its record stays)", ArgsUsage: "ID",
				Action: change(1, "ID", func(ctx context.Context, st *reminders.Store, _ *time.Location, id int64, _ []string) (reminders.Reminder, error) {
					return st.Remove(ctx, id, "reminders remove")
				})},
		},
	}
}

// trailingTime takes the time said at the end of a reminder's words
// ("call mom tomorrow at 9") when --at is not given, and says which words
// it read as the time; without one, --at is asked for with an example.
func (a *app) trailingTime(text string, due *time.Time, loc *time.Location) (string, error) {
	rest, at, t, ok := reminders.SplitTrailingTime(text, a.now(), loc)
	if !ok {
		return "", usagef("remind needs a time: at the end of the words (agent remind %s tomorrow at 9) or as --at WHEN (+1h, \"fri 18:00\", 2026-12-04T18:00)", exampleWords(text, "call mom"))
	}
	a.infof("read %q as the time (say it with --at to keep it in the text)", at)
	*due = t
	return rest, nil
}

// withReminders opens the workspace and hands run the reminder store and
// the user's zone.
func (a *app) withReminders(ctx context.Context, run func(st *reminders.Store, loc *time.Location) error) error {
	return a.withRemindersFrom(ctx, a.openWorkspace, run)
}

// withRemindersFrom is withReminders with the workspace opened by open
// (openForReading for the list, which works on a read-only disk).
func (a *app) withRemindersFrom(ctx context.Context, open func(context.Context) (*core.Workspace, error), run func(st *reminders.Store, loc *time.Location) error) error {
	ws, err := open(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return err
	}
	return run(reminders.NewStore(ws.State, a.now), loc)
}

// reminderJSON is the JSON shape of a reminder; part of the CLI contract
// (docs/cli-time.md): its id, then its fields as they travel between
// devices (reminders.Value, the one definition of them).
type reminderJSON struct {
	ID int64 `json:"id"`
	reminders.Value
}

func remindersJSON(list []reminders.Reminder) []reminderJSON {
	out := make([]reminderJSON, 0, len(list))
	for _, r := range list {
		j := reminderJSON{ID: r.ID, Value: reminders.Value{Text: r.Text, DueAt: jsonTime(r.DueAt), Status: r.Status, CreatedBy: r.CreatedBy, CreatedAt: jsonTime(r.CreatedAt)}}
		if r.DeliveredAt != nil {
			d := jsonTime(*r.DeliveredAt)
			j.DeliveredAt = &d
		}
		out = append(out, j)
	}
	return out
}

func (a *app) printReminders(list []reminders.Reminder, loc *time.Location) error {
	switch {
	case a.jsonOut:
		return a.writeJSON(remindersJSON(list))
	case a.io.OutTTY:
		if len(list) == 0 {
			return nil
		}
		tw := a.newTable("ID", "DUE", "STATUS", "TEXT").timed("DUE")
		for _, r := range list {
			due, status := reminders.Format(r.DueAt, loc), r.Status
			if r.Status == reminders.StatusPending && !r.DueAt.After(a.now()) {
				// Said in words, not only in red: under NO_COLOR an
				// overdue reminder looked like one still ahead.
				due, status = a.ansi("31", due), "overdue"
			}
			tw.row(strconv.FormatInt(r.ID, 10), due, status, printable.Escape(printable.OneLine(r.Text)))
		}
		return tw.flush()
	default:
		for _, r := range list {
			if err := writeTSV(a.io.Out, strconv.FormatInt(r.ID, 10), jsonTime(r.DueAt), r.Status, r.Text); err != nil {
				return err
			}
		}
		return nil
	}
}

// remindersAtChatStart prints the one line a chat starts with when
// reminders are due; a failure to read them must not stop the chat.
func (a *app) remindersAtChatStart(ctx context.Context, ws *core.Workspace) {
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return
	}
	if line, err := reminders.ChatStartLine(ctx, ws.State, a.now(), loc); err == nil && line != "" {
		a.infof("%s", line)
	}
}

// exampleWords is the user's own words for an example command line when
// they can be shown unquoted, else fallback.
func exampleWords(text, fallback string) string {
	if len(text) > 40 || strings.TrimSpace(text) == "" {
		return fallback
	}
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' {
			return fallback
		}
	}
	return text
}
