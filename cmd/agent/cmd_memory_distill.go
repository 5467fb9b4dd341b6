package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/distill"
	"agent/core/memrev"
	"agent/index"
	"agent/soul/revisions"
)

// memoryDistillCommands: agent memory distill, and MEMORY.md's revisions
// (history, diff, revert).
func (a *app) memoryDistillCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "distill",
			Usage:     "distill the daily logs into weekly and monthly digests (digests/) and propose durable facts for MEMORY.md",
			ArgsUsage: "[week|month]",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "period", Usage: "distill only `P`: a week (2026-W47) or a month (2026-11)"},
				&cli.BoolFlag{Name: "dry-run", Usage: "call the model and check its output; write nothing"},
				&cli.BoolFlag{Name: "apply", Usage: "accept every proposed fact (without a terminal; else they are only printed)"},
				&cli.IntFlag{Name: "num-ctx", Usage: "context window per model call, in tokens (long periods are split to fit)", Value: distill.DefaultNumCtx, Sources: cli.EnvVars("AGENT_NUM_CTX")},
				&cli.IntFlag{Name: "num-predict", Usage: "tokens kept for each reply", Value: distill.DefaultNumPredict, Sources: cli.EnvVars("AGENT_DISTILL_NUM_PREDICT")},
				&cli.IntFlag{Name: "week-tokens", Usage: "budget of a weekly digest, in tokens", Value: distill.DefaultWeekTokens, Sources: cli.EnvVars("AGENT_DISTILL_WEEK_TOKENS")},
				&cli.IntFlag{Name: "month-tokens", Usage: "budget of a monthly digest, in tokens", Value: distill.DefaultMonthTokens, Sources: cli.EnvVars("AGENT_DISTILL_MONTH_TOKENS")},
			},
			Action: a.runDistill,
		},
		{
			Name:   "history",
			Usage:  "list MEMORY.md's revisions, newest first",
			Action: a.withMemRev(0, 0, a.runMemoryHistory),
		},
		{
			Name:      "diff",
			Usage:     "diff two revisions of MEMORY.md; one: REV against the current; none: the last change",
			ArgsUsage: "[REV] [REV]",
			Action:    a.withMemRev(0, 2, a.runMemoryDiff),
		},
		{
			Name:      "revert",
			Usage:     "restore MEMORY.md as of revision REV (recorded as a new revision)",
			ArgsUsage: "REV",
			Action:    a.withMemRev(1, 1, a.runMemoryRevert),
		},
	}
}

// distillJSON is the --json shape of memory distill (docs/cli-distill.md).
type distillJSON struct {
	Periods   []distill.Result   `json:"periods"`
	Proposals []distill.Proposal `json:"proposals"`
	Accepted  []int64            `json:"accepted"`
	Rejected  []int64            `json:"rejected"`
}

func (a *app) runDistill(ctx context.Context, cmd *cli.Command) error {
	kind := ""
	switch cmd.Args().Len() {
	case 0:
	case 1:
		kind = cmd.Args().First()
		if kind != distill.Week && kind != distill.Month {
			return usagef("distill takes week or month, not %q", kind)
		}
	default:
		return usagef("usage: agent memory distill [week|month] [--period P]")
	}
	if cmd.Bool("dry-run") && cmd.Bool("apply") {
		return usagef("--dry-run and --apply do not go together")
	}
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return err
	}
	today := a.now().In(loc)
	periods, err := distill.Periods(ws.Home, today, kind, cmd.String("period"))
	if err != nil {
		return distillErr(err)
	}
	out := distillJSON{Periods: []distill.Result{}, Proposals: []distill.Proposal{}, Accepted: []int64{}, Rejected: []int64{}}
	var runErr error
	if len(periods) > 0 {
		opts, done, err := a.distillOptions(ctx, cmd, ws, kind, today)
		if err != nil {
			return err
		}
		defer done()
		out.Periods, runErr = distill.Run(ctx, opts)
		for _, r := range out.Periods {
			a.reportPeriod(r)
		}
		if runErr != nil && !errors.Is(runErr, distill.ErrMostlyInvalid) {
			return distillErr(runErr)
		}
	} else {
		a.infof("nothing to distill: every complete period with logs has its digest")
	}
	if !cmd.Bool("dry-run") {
		if err := a.reviewProposals(ctx, ws, cmd.Bool("apply"), today, &out); err != nil {
			return err
		}
	}
	if a.jsonOut {
		if err := a.writeJSON(out); err != nil {
			return err
		}
	} else {
		a.printDistill(out, cmd.Bool("dry-run"))
	}
	if runErr != nil {
		return &codedError{code: exitFailure, err: runErr}
	}
	return nil
}

// distillOptions checks the model (exit 4 before anything is written) and
// opens the index that finds facts already in MEMORY.md.
func (a *app) distillOptions(ctx context.Context, cmd *cli.Command, ws *core.Workspace, kind string, today time.Time) (distill.Options, func(), error) {
	o, err := core.NewOllama(nil)
	if err != nil {
		return distill.Options{}, nil, err
	}
	core.SayRemote(ws.Home, o.Host(), core.RemoteForDistill, func(msg string) { a.warnf("%s", msg) })
	name := core.NormalizeModel(a.model)
	info, err := o.Check(ctx, name)
	if err != nil {
		return distill.Options{}, nil, err
	}
	numCtx := int(cmd.Int("num-ctx"))
	if info.ContextLength > 0 && info.ContextLength < numCtx {
		numCtx = info.ContextLength
	}
	opts := distill.Options{
		Home: ws.Home, Today: today, Kind: kind, Period: cmd.String("period"), DryRun: cmd.Bool("dry-run"),
		NumCtx: numCtx, NumPredict: int(cmd.Int("num-predict")),
		WeekTokens: int(cmd.Int("week-tokens")), MonthTokens: int(cmd.Int("month-tokens")),
		Model: core.DistillModel{Model: o, Name: a.model}, DB: ws.State, Now: a.now,
		Progress: func(msg string) { a.infof("%s", msg) },
	}
	// Chat's calibrated ratio for this model, if any, sizes the first parts.
	if cpt, err := core.NewSessions(ws.State, a.now).CharsPerToken(ctx, name); err == nil && cpt > 0 {
		opts.CharsPerToken = cpt
	}
	done := func() {}
	if ix, err := index.Open(ctx, ws.Home, func(msg string) { a.warnf("%s", msg) }); err == nil {
		opts.Present = distill.IndexPresence(ix)
		done = func() { ix.Close() }
	} else {
		a.warnf("index unavailable (%v): facts are compared with MEMORY.md's lines only", err)
	}
	return opts, done, nil
}

// noteOverdue tells stderr which distillations are due and not done
// ("last week (2026-W47) not distilled yet"), for agent doctor. Without a
// usable workspace it says nothing: doctor's checks report that.
func (a *app) noteOverdue(ctx context.Context) {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return
	}
	defer ws.Close()
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return
	}
	notes, err := distill.Overdue(ws.Home, a.now().In(loc))
	if err != nil {
		a.warnf("digests: %v", err)
	}
	for _, n := range notes {
		a.infof("note: %s", n)
	}
}

func distillErr(err error) error {
	if errors.Is(err, distill.ErrInvalid) {
		return usagef("%v", err)
	}
	return err
}

// reportPeriod tells stderr what was kept and dropped, reason by reason.
func (a *app) reportPeriod(r distill.Result) {
	drops := func(c distill.Counts) string {
		var parts []string
		for k, v := range c.Dropped {
			parts = append(parts, fmt.Sprintf("%d %s", v, k))
		}
		sort.Strings(parts)
		return strings.Join(parts, ", ")
	}
	msg := fmt.Sprintf("%s: %d logs in %d parts; %d items kept, %d dropped", r.Period, r.Logs, r.Chunks, r.Items.Kept, r.Items.DroppedTotal())
	if d := drops(r.Items); d != "" {
		msg += " (" + d + ")"
	}
	if r.Kind == distill.Month {
		msg += fmt.Sprintf("; %d facts kept, %d dropped", r.Facts.Kept, r.Facts.DroppedTotal())
		if d := drops(r.Facts); d != "" {
			msg += " (" + d + ")"
		}
	}
	if r.Refits > 0 {
		msg += fmt.Sprintf("; split again %d times to fit num_ctx", r.Refits)
	}
	if r.CutLines > 0 {
		msg += fmt.Sprintf("; %d over-long log lines shortened in the prompt", r.CutLines)
	}
	if r.OverBudget > 0 {
		msg += fmt.Sprintf("; %d items over the budget left out (noted in the digest)", r.OverBudget)
	}
	if r.Wrote {
		msg += "; wrote " + r.Path
	}
	if r.Note != "" {
		msg += "; " + r.Note
	}
	if r.Invalid {
		a.warnf("%s", msg)
		return
	}
	a.infof("%s", msg)
}

// printDistill writes the data: one record per period, then the proposals
// still pending; with --dry-run, the digests that would be written.
func (a *app) printDistill(out distillJSON, dry bool) {
	for _, r := range out.Periods {
		status := "skipped"
		switch {
		case r.Wrote:
			status = "wrote"
		case dry && r.Digest != "":
			status = "dry-run"
		case r.Invalid:
			status = "invalid"
		}
		writeTSV(a.io.Out, "digest", r.Period, status, r.Path, strconv.Itoa(r.Items.Kept), strconv.Itoa(r.Items.DroppedTotal()), strconv.Itoa(r.Written), strconv.Itoa(r.Proposed))
	}
	for _, p := range out.Proposals {
		writeTSV(a.io.Out, "proposal", strconv.FormatInt(p.ID, 10), p.Action, p.Section, p.Text, p.Source, p.Replaces)
	}
	if dry {
		for _, r := range out.Periods {
			if r.Digest != "" {
				fmt.Fprintf(a.io.Out, "\n%s", r.Digest)
			}
		}
	}
}

// reviewProposals decides the pending proposals: on a terminal the user
// accepts or rejects each (or all); without one, --apply accepts them all,
// else they are listed and left pending.
func (a *app) reviewProposals(ctx context.Context, ws *core.Workspace, apply bool, today time.Time, out *distillJSON) error {
	pending, err := distill.Pending(ctx, ws.State)
	if err != nil || len(pending) == 0 {
		return err
	}
	revs := memrev.NewStore(ws.State, ws.Home, a.now)
	interactive := !apply && !a.jsonOut && a.io.InTTY && a.io.ErrTTY
	in := bufio.NewReader(a.io.In)
	all := apply
	for i, p := range pending {
		decision := "accept"
		if !all {
			if !interactive {
				out.Proposals = append(out.Proposals, pending[i:]...)
				a.infof("proposed facts pending: %d (review them on a terminal, or accept them all with --apply)", len(pending)-i)
				return nil
			}
			decision = a.askProposal(in, p)
			if decision == "all" {
				all, decision = true, "accept"
			}
			if decision == "quit" {
				out.Proposals = append(out.Proposals, pending[i:]...)
				return nil
			}
		}
		switch decision {
		case "accept":
			if err := distill.Accept(ctx, ws.State, revs, ws.Home, p, today); err != nil {
				return err
			}
			out.Accepted = append(out.Accepted, p.ID)
			a.infof("added to MEMORY.md: %s", p.Text)
		case "reject":
			if err := distill.Reject(ctx, ws.State, p.ID, a.now()); err != nil {
				return err
			}
			out.Rejected = append(out.Rejected, p.ID)
		}
	}
	return nil
}

// askProposal shows one proposal on stderr and reads y/n/a/q.
func (a *app) askProposal(in *bufio.Reader, p distill.Proposal) string {
	fmt.Fprintf(a.io.Err, "\n%s under ## %s: %s\n  source: %s\n", p.Action, p.Section, p.Text, p.Source)
	if p.Replaces != "" {
		fmt.Fprintf(a.io.Err, "  supersedes: %s\n", strings.TrimSpace(p.Replaces))
	}
	for {
		fmt.Fprint(a.io.Err, "accept? [y]es, [n]o (never propose again), [a]ll, [q]uit: ")
		line, err := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return "accept"
		case "n", "no":
			return "reject"
		case "a", "all":
			return "all"
		case "q", "quit":
			return "quit"
		}
		if err != nil {
			return "quit"
		}
	}
}

// withMemRev checks the revision arguments, opens the workspace and hands
// the action MEMORY.md's revision store.
func (a *app) withMemRev(min, max int, run func(ctx context.Context, st *memrev.Store, revs []int64) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		revs, err := revisionArgs(cmd, min, max, "agent memory history")
		if err != nil {
			return err
		}
		ws, err := a.openWorkspace(ctx)
		if err != nil {
			return err
		}
		defer ws.Close()
		return run(ctx, memrev.NewStore(ws.State, ws.Home, a.now), revs)
	}
}

func (a *app) runMemoryHistory(ctx context.Context, st *memrev.Store, _ []int64) error {
	hist, err := st.History(ctx)
	if err != nil {
		return err
	}
	return a.printRevisions(hist)
}

// runMemoryDiff: none, the last change; one, REV against the current
// MEMORY.md; two, REV against REV.
func (a *app) runMemoryDiff(ctx context.Context, st *memrev.Store, revs []int64) error {
	hist, err := st.History(ctx) // records an editor's change first
	if err != nil {
		return err
	}
	if len(hist) == 0 {
		return a.printSoulDiff(0, 0, "")
	}
	from, to := int64(0), hist[0].ID
	switch len(revs) {
	case 0:
		if len(hist) < 2 {
			return a.printSoulDiff(to, to, "")
		}
		from = hist[1].ID
	case 1:
		from = revs[0]
	case 2:
		from, to = revs[0], revs[1]
	}
	old, err := st.Get(ctx, from)
	if err != nil {
		return err
	}
	cur, err := st.Get(ctx, to)
	if err != nil {
		return err
	}
	name := func(id int64) string { return "MEMORY.md@" + strconv.FormatInt(id, 10) }
	return a.printSoulDiff(from, to, revisions.Diff(name(from), old.Content, name(to), cur.Content))
}

func (a *app) runMemoryRevert(ctx context.Context, st *memrev.Store, revs []int64) error {
	r, err := st.Revert(ctx, revs[0])
	if err != nil {
		return err
	}
	a.infof("MEMORY.md restored as of revision %d (now revision %d)", revs[0], r.ID)
	return nil
}
