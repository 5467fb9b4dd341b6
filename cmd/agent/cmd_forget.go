package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/devsync"
	"agent/core/forget"
	"agent/index"
	"agent/memory/printable"
)

// forgetFlags are agent forget's and agent sessions delete's.
func forgetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do it without asking (for scripts)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "only list where it is; change nothing"},
	}
}

// openForForget opens the workspace and its index: a forget finds and
// removes a phrase in both.
func (a *app) openForForget(ctx context.Context) (*core.Workspace, *index.Index, error) {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return nil, nil, err
	}
	ix, err := index.Open(ctx, ws.Home, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		ws.Close()
		return nil, nil, err
	}
	return ws, ix, nil
}

func (a *app) forgetCommand() *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Usage:     "take a phrase back from every place it went (files, sessions, revisions, digests, imports, the index)",
		ArgsUsage: "TEXT… (or - for standard input)",
		Flags:     forgetFlags(),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			// A forget is committed in one transaction (docs/decisions-forget.md):
			// stopped before it, nothing changed; after it, it is finished.
			return interrupted(a.forgetPhrase(ctx, cmd), "nothing was forgotten; run it again")
		},
	}
}

func (a *app) forgetPhrase(ctx context.Context, cmd *cli.Command) error {
	// The phrase's words are joined as chat joins them; "-" reads it
	// from standard input, which keeps it out of the shell's history.
	phrase, err := a.textArg(cmd, "phrase")
	if err != nil {
		return err
	}
	phrase = strings.TrimRight(phrase, "\r\n") // echo's newline is not part of it
	ws, ix, err := a.openForForget(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer ix.Close()
	var step func(done, total int)
	progress := a.progressLine("agent: looking in files")
	if progress != nil {
		step = progress.set
	}
	plan, err := forget.FindProgress(ctx, ws.Home, ws.State, ix, phrase, step)
	if progress != nil {
		progress.clear()
	}
	if err != nil {
		return err
	}
	if plan.Empty() && len(plan.Places) == 0 {
		return &codedError{code: exitNotFound, err: errors.New("the phrase is in no file, session or index of the workspace")}
	}
	return a.runForget(ctx, plan, ws.Home, ws.State, ix, cmd.Bool("yes"), cmd.Bool("dry-run"), "forget it")
}

func (a *app) sessionsDeleteCommand() *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Usage:     "delete whole sessions, their logged turns and what was derived from them",
		ArgsUsage: "[NAME…]",
		Flags:     append(forgetFlags(), append(unrepliedFlags(), &cli.StringFlag{Name: "before", Usage: "also every session last active before `DATE` (YYYY-MM-DD, in your time zone, or RFC 3339)"})...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			s := cmd.String("before")
			if _, err := parseBefore(s, time.UTC); err != nil { // refused before anything opens
				return err
			}
			if !cmd.Args().Present() && s == "" && !unreplied(cmd) {
				return usagef("sessions delete takes NAME…, --before DATE, --unanswered or --empty")
			}
			ws, ix, err := a.openForForget(ctx)
			if err != nil {
				return err
			}
			defer ws.Close()
			defer ix.Close()
			// A date is the user's midnight, in the zone every time is shown in.
			before, _ := parseBefore(s, core.WorkspaceZone(ctx, ws))
			names, err := a.unrepliedSessions(ctx, ws, cmd)
			if err != nil {
				return err
			}
			plan, err := forget.Sessions(ctx, ws.Home, ws.State, ix, names, before)
			if err != nil {
				return err
			}
			if plan.Empty() {
				a.infof("no session to delete")
				return nil
			}
			return interrupted(a.runForget(ctx, plan, ws.Home, ws.State, ix, cmd.Bool("yes"), cmd.Bool("dry-run"), "delete them"),
				"nothing was deleted; run it again")
		},
	}
}

// parseBefore reads --before: a date is midnight in loc, else RFC 3339;
// "" is no bound.
func parseBefore(s string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation("2006-01-02", s, loc)
	if err != nil {
		if t, err = time.Parse(time.RFC3339, s); err != nil {
			return time.Time{}, usagef("--before %q: give a date as YYYY-MM-DD or RFC 3339", s)
		}
	}
	return t, nil
}

// runForget lists the plan's places on stdout (the data), asks on a
// terminal unless yes, and applies it.
func (a *app) runForget(ctx context.Context, plan *forget.Plan, home string, db *sql.DB, ix *index.Index, yes, dry bool, question string) error {
	if a.jsonOut {
		places := plan.Places
		if places == nil {
			places = []forget.Place{}
		}
		out := struct {
			Places []forget.Place `json:"places"`
			Done   bool           `json:"done"`
			Result *forget.Result `json:"result"`
		}{Places: places}
		if !dry && yes {
			res, err := plan.Apply(ctx, home, db, ix, a.now())
			if err != nil {
				return err
			}
			if err := forgetReachesSync(home, res); err != nil {
				return err
			}
			out.Done, out.Result = true, &res
		}
		if !dry && !yes {
			if err := a.writeJSON(out); err != nil {
				return err
			}
			return errors.New("not done: with --json, pass --yes to do it")
		}
		return a.writeJSON(out)
	}
	cols := a.io.cols()
	for _, p := range plan.Places {
		where, what := describePlace(p)
		if a.io.OutTTY {
			for _, l := range wrapWords(where+"  "+what, cols) {
				fmt.Fprintln(a.io.Out, l)
			}
			if line := a.forgetExcerpt(p, cols); line != "" {
				fmt.Fprintln(a.io.Out, forgetIndent+line)
			}
		} else {
			writeTSV(a.io.Out, p.Kind, where, fmt.Sprint(p.Count), p.Note, p.Text)
		}
	}
	if plan.Kept > 0 {
		a.warnf("%d of these are left as they are (your notes folders, files that are not text, names, times and headings the agent finds things by): edit them yourself", plan.Kept)
	}
	if dry {
		return nil
	}
	if plan.Empty() {
		return nil
	}
	if !yes && a.io.InTTY && a.io.ErrTTY {
		yes = a.confirm(question + "?")
	}
	if !yes {
		return errors.New("nothing changed: confirm on a terminal, or pass --yes")
	}
	res, err := plan.Apply(ctx, home, db, ix, a.now())
	if err != nil {
		return err
	}
	if err := forgetReachesSync(home, res); err != nil {
		return err
	}
	msg := fmt.Sprintf("done: %d %s rewritten, %d stored %s changed", res.Files, printable.Plural(res.Files, "file", "files"),
		res.Rows, printable.Plural(res.Rows, "value", "values"))
	if res.Sessions > 0 {
		msg += fmt.Sprintf(", %d %s deleted", res.Sessions, printable.Plural(res.Sessions, "session", "sessions"))
	}
	if res.Index {
		msg += ", index rebuilt"
	}
	a.infof("%s", msg)
	return nil
}

// forgetReachesSync asks the next agent sync to rewrite the shared history
// when the forget changed files: older commits hold the phrase, here, on
// the remote and on every device (docs/cli-sync.md).
func forgetReachesSync(home string, res forget.Result) error {
	if res.Files == 0 {
		return nil
	}
	return devsync.MarkRewrite(home)
}

// describePlace names a place as a person finds it again.
func describePlace(p forget.Place) (where, what string) {
	note := ""
	if p.Note != "" {
		note = " (" + p.Note + ")"
	}
	switch p.Kind {
	case "file", "notes":
		where = printable.Escape(p.Path)
		if p.Line > 0 {
			where += fmt.Sprintf(":%d", p.Line)
		}
		if p.Session != "" {
			what = "session " + printable.Escape(p.Session)
		}
	case "session":
		where = "session " + printable.Escape(p.Session)
		if p.Turn > 0 {
			where += fmt.Sprintf(" turn %d", p.Turn)
		}
		what = p.Table + "." + p.Column
		if p.Column == "" {
			what = fmt.Sprintf("%d messages", p.Count)
		}
	case "revision":
		where = p.Path
		what = ""
	case "index":
		where = "index.db"
		what = fmt.Sprintf("%d chunks (rebuilt)", p.Count)
	default:
		where = fmt.Sprintf("state.db %s.%s row %d", p.Table, p.Column, p.Row)
	}
	return where, strings.TrimSpace(what + note)
}
