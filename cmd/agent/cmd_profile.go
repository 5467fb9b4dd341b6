package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/when"
	"agent/profile"
)

func (a *app) profileCommand() *cli.Command {
	return &cli.Command{
		Name:   "profile",
		Usage:  "the agent's and your identity: records only you change",
		Action: a.requireSubcommand,
		Commands: []*cli.Command{
			{
				Name:   "show",
				Usage:  "list the profile records",
				Action: a.withProfile(0, "", a.runProfileShow),
			},
			{
				Name:      "set",
				Usage:     "set a record (valid keys: " + strings.Join(profile.Keys(), ", ") + ")",
				ArgsUsage: "KEY VALUE",
				Action:    a.withProfile(2, "KEY VALUE", a.runProfileSet),
			},
			{
				Name:      "unset",
				Usage:     "remove a record",
				ArgsUsage: "KEY",
				Action:    a.withProfile(1, "KEY", a.runProfileUnset),
			},
			{
				Name:   "history",
				Usage:  "every change: key, old, new, when, by which command",
				Action: a.withProfile(0, "", a.runProfileHistory),
			},
			{
				Name:   "proposals",
				Usage:  "changes the model proposed (pending ones unless --all)",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "include accepted and rejected proposals"}},
				Action: a.withProfile(0, "", a.runProfileProposals),
			},
			{
				Name:      "accept",
				Usage:     "apply a pending proposal",
				ArgsUsage: "ID",
				Action:    a.withProfile(1, "ID", a.runProfileAccept),
			},
			{
				Name:      "reject",
				Usage:     "drop a pending proposal",
				ArgsUsage: "ID",
				Action:    a.withProfile(1, "ID", a.runProfileReject),
			},
		},
	}
}

// withProfile checks the arguments before anything else (a usage error wins
// over a missing workspace), then opens the workspace and hands the action
// its profile store and arguments. An ID argument must be a proposal number.
func (a *app) withProfile(nargs int, argsUsage string, run func(ctx context.Context, cmd *cli.Command, st *profile.Store, args []string) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		if cmd.Args().Len() != nargs {
			if nargs == 0 {
				return usagef("%s takes no arguments", strings.TrimPrefix(cmd.FullName(), "agent "))
			}
			return usagef("usage: %s %s", cmd.FullName(), argsUsage)
		}
		if argsUsage == "ID" {
			if _, err := parseProposalID(cmd.Args().First()); err != nil {
				return err
			}
		}
		open := a.openWorkspace
		if nargs == 0 { // show, history, proposals: they only read
			open = a.openForReading
		}
		ws, err := open(ctx)
		if err != nil {
			return err
		}
		defer ws.Close()
		return run(ctx, cmd, profile.NewStore(ws.State, a.now), cmd.Args().Slice())
	}
}

// JSON shapes of the profile commands; part of the CLI contract
// (docs/cli-profile.md).
type (
	profileRecordJSON struct {
		Key       string `json:"key"`
		Scope     string `json:"scope"`
		Value     string `json:"value"`
		UpdatedAt string `json:"updated_at"`
	}
	profileChangeJSON struct {
		ID      int64   `json:"id"`
		Key     string  `json:"key"`
		Old     *string `json:"old"`
		New     *string `json:"new"`
		At      string  `json:"at"`
		Command string  `json:"command"`
	}
	profileProposalJSON struct {
		ID         int64   `json:"id"`
		Key        string  `json:"key"`
		Value      string  `json:"value"`
		Reason     string  `json:"reason"`
		ProposedBy string  `json:"proposed_by"`
		Status     string  `json:"status"`
		CreatedAt  string  `json:"created_at"`
		DecidedAt  *string `json:"decided_at"`
	}
)

// jsonTime is the one timestamp format of JSON and tab-separated output.
func jsonTime(t time.Time) string { return core.JSONTime(t) }

// personTime is a time shown to a person (tables, notes on a terminal): in
// the user's zone, with the zone named (when.Format). Before a workspace is
// opened that is the machine's zone.
func (a *app) personTime(t time.Time) string { return when.Format(t, a.zone) }

func (a *app) runProfileShow(ctx context.Context, _ *cli.Command, st *profile.Store, _ []string) error {
	recs, err := st.All(ctx)
	if err != nil {
		return err
	}
	switch {
	case a.jsonOut:
		out := make([]profileRecordJSON, 0, len(recs))
		for _, r := range recs {
			out = append(out, profileRecordJSON{r.Key, r.Scope, r.Value, jsonTime(r.UpdatedAt)})
		}
		return a.writeJSON(out)
	case a.io.OutTTY:
		if len(recs) == 0 {
			a.infof("no profile records yet (set one with: agent profile set KEY VALUE)")
			return nil
		}
		tw := a.newTable("KEY", "VALUE", "UPDATED").timed("UPDATED")
		for _, r := range recs {
			tw.row(r.Key, r.Value, a.personTime(r.UpdatedAt))
		}
		return tw.flush()
	default:
		for _, r := range recs {
			if err := writeTSV(a.io.Out, r.Key, r.Value); err != nil {
				return err
			}
		}
		return nil
	}
}

func (a *app) runProfileSet(ctx context.Context, _ *cli.Command, st *profile.Store, args []string) error {
	value := args[1]
	a.redact("profile value", &value)
	_, err := st.Set(ctx, profile.ByUser("profile set"), args[0], value)
	return err
}

func (a *app) runProfileUnset(ctx context.Context, _ *cli.Command, st *profile.Store, args []string) error {
	_, err := st.Unset(ctx, profile.ByUser("profile unset"), args[0])
	return err
}

func (a *app) runProfileHistory(ctx context.Context, _ *cli.Command, st *profile.Store, _ []string) error {
	hist, err := st.History(ctx)
	if err != nil {
		return err
	}
	switch {
	case a.jsonOut:
		out := make([]profileChangeJSON, 0, len(hist))
		for _, c := range hist {
			out = append(out, profileChangeJSON{c.ID, c.Key, c.Old, c.New, jsonTime(c.At), c.Command})
		}
		return a.writeJSON(out)
	case a.io.OutTTY:
		tw := a.newTable("ID", "WHEN", "KEY", "CHANGE", "COMMAND").timed("WHEN")
		for _, c := range hist {
			tw.row(strconv.FormatInt(c.ID, 10), a.personTime(c.At), c.Key, orUnset(c.Old)+" → "+orUnset(c.New), c.Command)
		}
		return tw.flush()
	default:
		for _, c := range hist {
			if err := writeTSV(a.io.Out, strconv.FormatInt(c.ID, 10), jsonTime(c.At), c.Key, deref(c.Old), deref(c.New), c.Command); err != nil {
				return err
			}
		}
		return nil
	}
}

func orUnset(s *string) string {
	if s == nil {
		return "(unset)"
	}
	return strconv.Quote(*s)
}

// deref gives "" for an absent value: values are never empty, so an empty
// field is unambiguous.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (a *app) runProfileProposals(ctx context.Context, cmd *cli.Command, st *profile.Store, _ []string) error {
	status := profile.StatusPending
	if cmd.Bool("all") {
		status = ""
	}
	ps, err := st.Proposals(ctx, status)
	if err != nil {
		return err
	}
	switch {
	case a.jsonOut:
		out := make([]profileProposalJSON, 0, len(ps))
		for _, p := range ps {
			j := profileProposalJSON{p.ID, p.Key, p.Value, p.Reason, p.ProposedBy, p.Status, jsonTime(p.CreatedAt), nil}
			if p.DecidedAt != nil {
				d := jsonTime(*p.DecidedAt)
				j.DecidedAt = &d
			}
			out = append(out, j)
		}
		return a.writeJSON(out)
	case a.io.OutTTY:
		if len(ps) == 0 {
			a.infof("no proposals")
			return nil
		}
		tw := a.newTable("ID", "STATUS", "KEY", "VALUE", "BY", "REASON")
		for _, p := range ps {
			tw.row(strconv.FormatInt(p.ID, 10), p.Status, p.Key, strconv.Quote(p.Value), p.ProposedBy, p.Reason)
		}
		if err := tw.flush(); err != nil {
			return err
		}
		if status == profile.StatusPending {
			a.infof("apply one with: agent profile accept ID (or drop it: agent profile reject ID)")
		}
		return nil
	default:
		for _, p := range ps {
			if err := writeTSV(a.io.Out, strconv.FormatInt(p.ID, 10), p.Status, p.Key, p.Value, p.ProposedBy, jsonTime(p.CreatedAt), p.Reason); err != nil {
				return err
			}
		}
		return nil
	}
}

func (a *app) runProfileAccept(ctx context.Context, _ *cli.Command, st *profile.Store, args []string) error {
	id, err := parseProposalID(args[0])
	if err != nil {
		return err
	}
	_, err = st.Accept(ctx, profile.ByUser(fmt.Sprintf("profile accept %d", id)), id)
	return err
}

func (a *app) runProfileReject(ctx context.Context, _ *cli.Command, st *profile.Store, args []string) error {
	id, err := parseProposalID(args[0])
	if err != nil {
		return err
	}
	_, err = st.Reject(ctx, profile.ByUser(fmt.Sprintf("profile reject %d", id)), id)
	return err
}

func parseProposalID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("proposal ID must be a positive number, not %q (see: agent profile proposals)", s)
	}
	return id, nil
}
