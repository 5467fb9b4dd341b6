package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/compact"
)

// sessionsCompactCommand is `agent sessions compact [NAME]`: the model
// summarises what the window has dropped of the session (default: the most
// recent), with the window as chat would build it under the same flags.
func (a *app) sessionsCompactCommand() *cli.Command {
	var flags []cli.Flag
	for _, f := range sessionFlags() {
		switch f.Names()[0] {
		case "continue", "session", "new":
		default:
			flags = append(flags, f)
		}
	}
	return &cli.Command{
		Name:      "compact",
		Usage:     "summarise the turns the context window has dropped (default: the most recent session)",
		ArgsUsage: "[NAME]",
		Flags:     flags,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return usagef("sessions compact takes at most one NAME")
			}
			s, err := a.openChat(ctx, cmd, "")
			if err != nil {
				return err
			}
			defer s.close()
			if name := cmd.Args().First(); name != "" {
				s.session, err = s.chat.Sessions.Get(ctx, name)
			} else {
				s.session, err = s.chat.Sessions.Latest(ctx)
			}
			if err != nil {
				return err
			}
			// Ollama is asked first: down, it is exit 4 with nothing changed.
			if err := a.checkModel(ctx, s); err != nil {
				return err
			}
			return a.compact(ctx, s)
		},
	}
}

// compact runs one compaction of the chat's current session and reports
// it: the summary on stdout (or the result as --json), the counts on stderr.
func (a *app) compact(ctx context.Context, s *chatSession) error {
	res, err := s.chat.Compact(ctx, &s.session, core.DistillModel{Model: s.ollama, Name: s.chat.ModelName},
		func(msg string) { a.infof("%s", msg) })
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.writeJSON(res)
	}
	fmt.Fprint(a.io.Out, res.Text)
	a.infof("compacted session %s: %s", res.Session, compactSummary(res.Result))
	return nil
}

// compactSummary is one line on what a compaction kept and dropped.
func compactSummary(r compact.Result) string {
	line := fmt.Sprintf("%d dropped turns (%d in the logs) summarised in %d lines", r.Turns, r.Logged, r.Items.Kept)
	if n := r.Items.DroppedTotal(); n > 0 {
		var why []string
		for k, v := range r.Items.Dropped {
			why = append(why, fmt.Sprintf("%d %s", v, k))
		}
		sort.Strings(why)
		line += fmt.Sprintf("; %d of the model's lines dropped (%s)", n, strings.Join(why, ", "))
	}
	if r.Trimmed > 0 {
		line += fmt.Sprintf("; the %d oldest lines left out to stay within the summary's share of the window", r.Trimmed)
	}
	return line + fmt.Sprintf("; the summary now covers %d turns in %d lines", r.Summary.Turns, len(r.Summary.Lines))
}
