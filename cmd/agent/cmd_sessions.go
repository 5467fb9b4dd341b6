package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/compact"
	"agent/memory/printable"
)

func (a *app) sessionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "look back at past conversations",
		Commands: []*cli.Command{
			{
				Name:  "list",
				Usage: "sessions, most recent first",
				Flags: []cli.Flag{&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 50, Usage: "at most `N` sessions"}},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Present() {
						return usagef("sessions list takes no arguments")
					}
					if cmd.Int("limit") < 1 {
						return usagef("--limit must be at least 1")
					}
					ws, err := a.openForReading(ctx)
					if err != nil {
						return err
					}
					defer ws.Close()
					list, err := core.NewSessions(ws.State, a.now).List(ctx, int(cmd.Int("limit")))
					if err != nil {
						return err
					}
					if a.jsonOut {
						out := make([]sessionJSON, len(list))
						for i, s := range list {
							out[i] = newSessionJSON(s)
						}
						return a.writeJSON(out)
					}
					if len(list) == 0 {
						// An empty list is no error: nothing to print, and
						// a person is told so.
						a.emptyHint("no sessions yet (start one with: agent chat)")
						return nil
					}
					if !a.io.OutTTY {
						for _, s := range list {
							writeTSV(a.io.Out, s.Name, s.UpdatedAt.Format(time.RFC3339), fmt.Sprint(s.Turns), s.Model, s.LastUser)
						}
						return nil
					}
					tw := a.newTable("SESSION", "LAST ACTIVE", "TURNS", "LAST MESSAGE").timed("LAST ACTIVE")
					for _, s := range list {
						tw.row(s.Name, a.personTime(s.UpdatedAt), fmt.Sprint(s.Turns), clip(s.LastUser, 50))
					}
					return tw.flush()
				},
			},
			{
				Name:      "show",
				Usage:     "one session's transcript (default: the most recent)",
				ArgsUsage: "[NAME]",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() > 1 {
						return usagef("sessions show takes at most one NAME")
					}
					ws, err := a.openForReading(ctx)
					if err != nil {
						return err
					}
					defer ws.Close()
					st := core.NewSessions(ws.State, a.now)
					var s core.Session
					if cmd.Args().Present() {
						s, err = st.Get(ctx, cmd.Args().First())
					} else {
						s, err = st.Latest(ctx)
					}
					if err != nil {
						return err
					}
					msgs, err := st.Messages(ctx, s)
					if err != nil {
						return err
					}
					sum, compacted, err := compact.Load(ctx, ws.State, s.ID)
					if err != nil {
						return err
					}
					if a.jsonOut {
						if msgs == nil {
							msgs = []core.StoredMessage{}
						}
						var summary *compact.Summary // null when never compacted
						if compacted {
							summary = &sum
						}
						return a.writeJSON(struct {
							sessionJSON
							Messages []core.StoredMessage `json:"messages"`
							Summary  *compact.Summary     `json:"summary"`
						}{newSessionJSON(s), msgs, summary})
					}
					if !a.io.OutTTY {
						if compacted {
							writeTSV(a.io.Out, sum.CreatedAt.Format(time.RFC3339), "summary", fmt.Sprintf("%d turns", sum.Turns), "", sum.Text())
						}
						for _, m := range msgs {
							writeTSV(a.io.Out, m.CreatedAt.Format(time.RFC3339), m.Role, m.Status, m.ToolName, m.Content)
						}
						return nil
					}
					if compacted {
						fmt.Fprintf(a.io.Out, "%s %s\n%s\n", a.ansi("1", fmt.Sprintf("summary of the first %d turns (compacted)", sum.Turns)),
							a.ansi("2", a.personTime(sum.CreatedAt)), sum.Text())
					}
					for _, m := range msgs {
						head := m.Role
						if m.ToolName != "" {
							head += " (" + m.ToolName + ")"
						}
						if m.Status != core.StatusComplete {
							head += " [" + m.Status + "]"
						}
						fmt.Fprintf(a.io.Out, "%s %s\n", a.ansi("1", head), a.ansi("2", a.personTime(m.CreatedAt)))
						for _, c := range m.ToolCalls {
							fmt.Fprintf(a.io.Out, "  → %s %s\n", c.Name, printable.Escape(fmt.Sprint(c.Arguments)))
						}
						if m.Content != "" { // the model's words, as its streamed reply: never driving the terminal
							fmt.Fprintln(a.io.Out, printable.Escape(strings.TrimRight(m.Content, "\n")))
						}
						fmt.Fprintln(a.io.Out)
					}
					return nil
				},
			},
			a.sessionsCompactCommand(),
			a.sessionsDeleteCommand(),
		},
	}
}

// clip shortens s to one line of at most n runes for a table cell.
func clip(s string, n int) string {
	return printable.Cut(printable.OneLine(s), n)
}

// sessionJSON is a session in --json: every field always present,
// timestamps as every command writes them (core.JSONTime).
type sessionJSON struct {
	Name          string `json:"name"`
	Model         string `json:"model"`
	CreatedAt     string `json:"created_at"`
	UpdatedAt     string `json:"updated_at"`
	Turns         int    `json:"turns"`
	LastUser      string `json:"last_user"`
	LastAssistant string `json:"last_assistant"`
}

func newSessionJSON(s core.Session) sessionJSON {
	return sessionJSON{Name: s.Name, Model: s.Model, CreatedAt: core.JSONTime(s.CreatedAt), UpdatedAt: core.JSONTime(s.UpdatedAt),
		Turns: s.Turns, LastUser: s.LastUser, LastAssistant: s.LastAssistant}
}
