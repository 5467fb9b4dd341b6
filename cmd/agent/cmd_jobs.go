package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/renameio/v2"
	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/jobs"
	"agent/core/reminders"
	"agent/memory"
	"agent/memory/printable"
)

func (a *app) jobsCommand() *cli.Command {
	byName := func(run func(ctx context.Context, st *jobs.Store, ws *core.Workspace, name string) error) cli.ActionFunc {
		return func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("usage: %s NAME", cmd.FullName())
			}
			return a.withJobs(ctx, func(st *jobs.Store, ws *core.Workspace) error {
				return run(ctx, st, ws, cmd.Args().First())
			})
		}
	}
	return &cli.Command{
		Name:  "jobs",
		Usage: "scheduled agent commands, run by `agent jobs tick` from cron or a systemd timer",
		Commands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "schedule an agent command: add NAME --schedule \"0 8 * * *\"|@daily|\"every 1h\" [--tz Z] -- ARGS…",
				ArgsUsage: "NAME -- ARGS…",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "schedule", Usage: "cron line, @daily/@weekly/…, or \"every D\"", Required: true},
					&cli.StringFlag{Name: "tz", Usage: "time zone of the schedule (default: user.timezone)"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() < 2 {
						return usagef("usage: agent jobs add NAME --schedule S -- AGENT-ARGS… (e.g. -- memory reindex)")
					}
					return a.withJobs(ctx, func(st *jobs.Store, ws *core.Workspace) error {
						loc, err := a.userLocation(ctx, ws)
						if err != nil {
							return err
						}
						if tz := cmd.String("tz"); tz != "" {
							if loc, err = time.LoadLocation(tz); err != nil || tz == "Local" {
								return usagef("--tz %q is not a time zone (use an IANA name such as Europe/Berlin or UTC)", tz)
							}
						}
						args := cmd.Args().Slice()[1:]
						ptrs := make([]*string, len(args))
						for i := range args {
							ptrs[i] = &args[i]
						}
						a.redact("job's command line", ptrs...)
						j, err := st.Add(ctx, cmd.Args().First(), cmd.String("schedule"), loc, args)
						if err != nil {
							return err
						}
						a.infof("job %s: %s, first run %s", j.Name, j.Schedule.Words(), a.personTime(j.NextAt))
						return a.printJobs([]jobs.Job{j})
					})
				},
			},
			{Name: "list", Usage: "every job, its schedule, next run and state", Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Present() {
					return usagef("jobs list takes no arguments")
				}
				return a.withJobs(ctx, func(st *jobs.Store, _ *core.Workspace) error {
					list, err := st.List(ctx)
					if err != nil {
						return err
					}
					if len(list) == 0 && !a.jsonOut {
						a.infof("no jobs (add one with: agent jobs add NAME --schedule S -- ARGS…)")
					}
					return a.printJobs(list)
				})
			}},
			{Name: "show", Usage: "one job", ArgsUsage: "NAME", Action: byName(func(ctx context.Context, st *jobs.Store, _ *core.Workspace, name string) error {
				j, err := st.Get(ctx, name)
				if err != nil {
					return err
				}
				return a.printJobs([]jobs.Job{j})
			})},
			{Name: "remove", Usage: "delete a job (its history stays)", ArgsUsage: "NAME", Action: byName(func(ctx context.Context, st *jobs.Store, _ *core.Workspace, name string) error {
				return st.Remove(ctx, name)
			})},
			{Name: "enable", Usage: "turn a job on (clears its failure count)", ArgsUsage: "NAME", Action: byName(func(ctx context.Context, st *jobs.Store, _ *core.Workspace, name string) error {
				_, err := st.SetEnabled(ctx, name, true)
				return err
			})},
			{Name: "disable", Usage: "turn a job off", ArgsUsage: "NAME", Action: byName(func(ctx context.Context, st *jobs.Store, _ *core.Workspace, name string) error {
				_, err := st.SetEnabled(ctx, name, false)
				return err
			})},
			{Name: "run", Usage: "run a job now; its schedule does not move", ArgsUsage: "NAME", Action: byName(func(ctx context.Context, st *jobs.Store, ws *core.Workspace, name string) error {
				tk, err := a.ticker(ctx, st, ws)
				if err != nil {
					return err
				}
				o, err := tk.RunNow(ctx, name)
				if err != nil {
					return err
				}
				fmt.Fprint(a.io.Out, o.Stdout)
				return a.reportOutcome(o)
			})},
			{
				Name:      "history",
				Usage:     "past runs, newest first (of one job, or all)",
				ArgsUsage: "[NAME]",
				Flags:     []cli.Flag{&cli.IntFlag{Name: "limit", Usage: "at most this many runs", Value: 20}},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() > 1 {
						return usagef("usage: agent jobs history [NAME]")
					}
					return a.withJobs(ctx, func(st *jobs.Store, _ *core.Workspace) error {
						name := cmd.Args().First()
						if name != "" {
							if _, err := st.Get(ctx, name); err != nil {
								return err
							}
						}
						runs, err := st.Runs(ctx, name, int(max(1, cmd.Int("limit"))))
						if err != nil {
							return err
						}
						return a.printRuns(runs)
					})
				},
			},
			{Name: "tick", Usage: "deliver due reminders and run due jobs, then exit (for cron or a systemd timer)", Action: func(ctx context.Context, cmd *cli.Command) error {
				return a.withJobs(ctx, func(st *jobs.Store, ws *core.Workspace) error { return a.runTick(ctx, st, ws) })
			}},
			a.jobsInstallCommand(),
		},
	}
}

// withJobs opens the workspace and hands run the job store.
func (a *app) withJobs(ctx context.Context, run func(st *jobs.Store, ws *core.Workspace) error) error {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	return run(jobs.NewStore(ws.State, a.now), ws)
}

// ticker runs jobs as this very binary, in this workspace, with this model,
// and appends each run to the day's log in the user's zone.
func (a *app) ticker(ctx context.Context, st *jobs.Store, ws *core.Workspace) (*jobs.Ticker, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the agent binary to run jobs with: %w", err)
	}
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return nil, err
	}
	return &jobs.Ticker{
		Store: st,
		Run:   jobs.ExecRunner(bin, ws.Home, a.model),
		Loc:   loc,
		Log: func(at time.Time, heading, body string) error {
			_, err := memory.AppendLogEntry(ws.Home, at, heading, body)
			return err
		},
	}, nil
}

// runTick delivers the reminders that fell due (stdout, which cron mails,
// and a desktop notification where notify-send exists), then runs the due
// jobs. Job results go to stderr: failures always, the rest unless --quiet.
func (a *app) runTick(ctx context.Context, st *jobs.Store, ws *core.Workspace) error {
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return err
	}
	due, err := reminders.NewStore(ws.State, a.now).Deliver(ctx, a.now(), "jobs tick")
	if err != nil {
		return err
	}
	if err := st.Beat(ctx); err != nil { // remind and doctor know a tick runs
		a.warnf("record the tick: %v", err)
	}
	for _, r := range due {
		text := printable.Escape(r.Text)
		line := fmt.Sprintf("reminder %d (due %s): %s", r.ID, reminders.Format(r.DueAt, loc), text)
		if !a.jsonOut {
			if _, err := fmt.Fprintln(a.io.Out, line); err != nil {
				return err
			}
		}
		desktopNotify(ctx, text, line)
	}
	tk, err := a.ticker(ctx, st, ws)
	if err != nil {
		return err
	}
	outcomes, err := tk.Tick(ctx)
	// A failed job makes the tick exit 1; only deferred ones, exit 4.
	var worst error
	ran := make([]tickJobJSON, 0, len(outcomes))
	for _, o := range outcomes {
		if e := a.reportOutcome(o); e != nil && (worst == nil || exitCode(e) == exitFailure) {
			worst = e
		}
		ran = append(ran, tickJobJSON{o.Job, o.RunID, o.Status, o.ExitCode, o.Disabled})
	}
	if a.jsonOut {
		if e := a.writeJSON(tickJSON{remindersJSON(due), ran}); e != nil {
			return e
		}
	}
	if err != nil {
		return err
	}
	return worst
}

// tickJSON is what `agent jobs tick --json` prints: the reminders it
// delivered and the runs it made.
type (
	tickJSON struct {
		Reminders []reminderJSON `json:"reminders"`
		Jobs      []tickJobJSON  `json:"jobs"`
	}
	tickJobJSON struct {
		Job      string `json:"job"`
		RunID    int64  `json:"run_id"`
		Status   string `json:"status"`
		ExitCode int    `json:"exit_code"`
		Disabled bool   `json:"disabled"`
	}
)

// reportOutcome says on stderr how a run ended; a failed run is an error
// (exit 1), a deferred one exit 4.
func (a *app) reportOutcome(o jobs.Outcome) error {
	if o.LogErr != nil {
		a.warnf("job %s: output not logged: %v", o.Job, o.LogErr)
	}
	switch o.Status {
	case "ok":
		a.infof("job %s: ok", o.Job)
		return nil
	case "deferred":
		a.warnf("job %s: deferred, the model is unavailable (exit %d); the next tick tries again", o.Job, o.ExitCode)
		return &codedError{code: exitUnavailable, err: errSilent}
	}
	a.warnf("job %s: failed (exit %d): %s", o.Job, o.ExitCode, firstLine(strings.TrimPrefix(strings.TrimSpace(o.Stderr), "agent: ")))
	if o.Disabled {
		a.warnf("job %s %s (see: agent jobs history %s; then: agent jobs enable %s)", o.Job, o.DisabledReason, o.Job, o.Job)
	}
	return silentExit(exitFailure)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// desktopNotify shows a reminder as a desktop notification: notify-send
// on Linux, osascript's "display notification" on macOS (title and body
// passed as arguments, never spliced into the script). Without a desktop
// session either fails, which is fine: stdout has the reminder.
func desktopNotify(ctx context.Context, title, body string) {
	name, args := notifyCommand(runtime.GOOS, "Reminder: "+title, body)
	bin, err := exec.LookPath(name)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = exec.CommandContext(ctx, bin, args...).Run()
}

func notifyCommand(goos, title, body string) (string, []string) {
	if goos == "darwin" {
		return "osascript", []string{"-e", "on run argv", "-e",
			"display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", title, body}
	}
	return "notify-send", []string{"--app-name=agent", title, body}
}

// jobJSON is the JSON shape of a job; part of the CLI contract
// (docs/cli-time.md).
type jobJSON struct {
	Name           string   `json:"name"`
	Schedule       string   `json:"schedule"`
	Zone           string   `json:"zone"`
	Words          string   `json:"words"`
	Args           []string `json:"args"`
	Enabled        bool     `json:"enabled"`
	Failures       int      `json:"failures"`
	DisabledReason string   `json:"disabled_reason"`
	NextAt         string   `json:"next_at"`
	LastAt         *string  `json:"last_at"`
	LastStatus     string   `json:"last_status"`
}

// jobState is one word for a job's state, with why when failures stopped it.
func jobState(j jobs.Job) string {
	switch {
	case j.Enabled && j.Failures > 0:
		return fmt.Sprintf("enabled, %d failed in a row", j.Failures)
	case j.Enabled:
		return "enabled"
	case j.DisabledReason != "":
		return j.DisabledReason
	}
	return "disabled"
}

func (a *app) printJobs(list []jobs.Job) error {
	switch {
	case a.jsonOut:
		out := make([]jobJSON, 0, len(list))
		for _, j := range list {
			o := jobJSON{Name: j.Name, Schedule: j.Schedule.Spec, Zone: j.Schedule.Loc.String(), Words: j.Schedule.Words(), Args: j.Args,
				Enabled: j.Enabled, Failures: j.Failures, DisabledReason: j.DisabledReason, NextAt: jsonTime(j.NextAt), LastStatus: j.LastStatus}
			if j.LastAt != nil {
				l := jsonTime(*j.LastAt)
				o.LastAt = &l
			}
			out = append(out, o)
		}
		return a.writeJSON(out)
	case a.io.OutTTY:
		if len(list) == 0 {
			return nil
		}
		tw := a.newTable("NAME", "SCHEDULE", "NEXT", "LAST", "STATE", "COMMAND").timed("NEXT")
		for _, j := range list {
			state := jobState(j)
			if j.DisabledReason != "" {
				state = a.ansi("31", state)
			}
			tw.row(j.Name, j.Schedule.Words(), a.personTime(j.NextAt), orDash(j.LastStatus), state, strings.Join(j.Args, " "))
		}
		return tw.flush()
	default:
		for _, j := range list {
			if err := writeTSV(a.io.Out, j.Name, j.Schedule.Spec, j.Schedule.Loc.String(), jsonTime(j.NextAt), orDash(j.LastStatus), jobState(j), strings.Join(j.Args, " ")); err != nil {
				return err
			}
		}
		return nil
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// runJSON is the JSON shape of one run in `jobs history`.
type runJSON struct {
	ID          int64  `json:"id"`
	Job         string `json:"job"`
	Trigger     string `json:"trigger"`
	ScheduledAt string `json:"scheduled_at"`
	StartedAt   string `json:"started_at"`
	FinishedAt  string `json:"finished_at"`
	Status      string `json:"status"`
	ExitCode    *int   `json:"exit_code"`
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
}

func (a *app) printRuns(runs []jobs.Run) error {
	if a.jsonOut {
		out := make([]runJSON, 0, len(runs))
		for _, r := range runs {
			out = append(out, runJSON(r))
		}
		return a.writeJSON(out)
	}
	for _, r := range runs {
		code := "-"
		if r.ExitCode != nil {
			code = strconv.Itoa(*r.ExitCode)
		}
		started := r.StartedAt
		if t, err := time.Parse(time.RFC3339, started); err == nil && a.io.OutTTY {
			started = a.personTime(t)
		}
		if err := writeTSV(a.io.Out, strconv.FormatInt(r.ID, 10), r.Job, started, r.Trigger, r.Status, code, firstLine(strings.TrimSpace(r.Stdout+"\n"+r.Stderr))); err != nil {
			return err
		}
	}
	return nil
}

// legacyTickTimer is the one timer every workspace shared before units were
// named per workspace (jobs.Install.UnitName).
const legacyTickTimer = "agent-tick.timer"

func (a *app) jobsInstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "print a crontab line and a systemd user timer that run `agent jobs tick` for this workspace, with OLLAMA_HOST and the model if --model or AGENT_MODEL names one; --write installs the timer",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "write", Usage: "write the systemd user units, after confirmation on a terminal"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			in, err := a.tickInstall()
			if err != nil {
				return err
			}
			if !cmd.Bool("write") {
				name := in.UnitName()
				_, err := fmt.Fprintf(a.io.Out, "# crontab -e, then add:\n%s\n# ~/.config/systemd/user/%s.service\n%s\n# ~/.config/systemd/user/%s.timer\n%s",
					in.Crontab(), name, in.Service(), name, in.Timer())
				return err
			}
			return a.writeTickUnits(ctx, in)
		},
	}
}

// tickInstall is the tick as this command runs: this binary, workspace,
// model and OLLAMA_HOST.
func (a *app) tickInstall() (jobs.Install, error) {
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return jobs.Install{}, err
	}
	if err := core.Locate(home); err != nil {
		return jobs.Install{}, err
	}
	bin, err := os.Executable()
	if err != nil {
		return jobs.Install{}, err
	}
	model := ""
	if a.modelAsked { // else the tick uses the default of the day it runs
		model = a.model
	}
	return jobs.NewInstall(bin, home, model, os.Getenv("OLLAMA_HOST"))
}

// writeTickUnits writes the workspace's systemd user units after the user
// confirms on a terminal, and starts the timer when systemctl is there.
func (a *app) writeTickUnits(ctx context.Context, in jobs.Install) error {
	if !a.io.InTTY || !a.io.ErrTTY {
		return usagef("--write asks for confirmation on a terminal; without one, copy the units printed by: agent jobs install")
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return err
	}
	dir := filepath.Join(cfg, "systemd", "user")
	service, timer := in.UnitName()+".service", in.UnitName()+".timer"
	if !a.confirm(fmt.Sprintf("write %s and %s in %s?", service, timer, dir)) {
		return errors.New("nothing written")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, body := range map[string]string{service: in.Service(), timer: in.Timer()} {
		if err := renameio.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, legacyTickTimer)); err == nil {
		a.warnf("%s from an earlier install also runs a tick; if it was for this workspace, stop it: systemctl --user disable --now %s", legacyTickTimer, legacyTickTimer)
	}
	start := "systemctl --user daemon-reload && systemctl --user enable --now " + timer
	if _, err := exec.LookPath("systemctl"); err != nil {
		a.infof("written to %s; start it with: %s", dir, start)
		return nil
	}
	for _, args := range [][]string{{"--user", "daemon-reload"}, {"--user", "enable", "--now", timer}} {
		if out, err := exec.CommandContext(ctx, "systemctl", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("units written to %s, but systemctl %s failed: %v: %s\nstart it yourself with: %s", dir, strings.Join(args, " "), err, strings.TrimSpace(string(out)), start)
		}
	}
	a.infof("installed and started %s (see: systemctl --user list-timers)", timer)
	return nil
}
