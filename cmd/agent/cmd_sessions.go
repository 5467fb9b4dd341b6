package main

import (
	"context"
	"errors"
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
				Usage: "answered sessions, most recent first (--all: every one, the unanswered and empty too)",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 50, Usage: "at most `N` sessions"},
					&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "also the sessions no reply came in (unanswered) and those with no message (empty)"},
				},
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
					st := core.NewSessions(ws.State, a.now)
					var list []core.Session
					hidden := 0
					if cmd.Bool("all") {
						list, err = st.List(ctx, int(cmd.Int("limit")))
					} else {
						list, hidden, err = st.ListAnswered(ctx, int(cmd.Int("limit")))
					}
					if err != nil {
						return err
					}
					if hidden > 0 { // said to a script too: the list is not all there is
						a.infof("%s without a reply not listed (see them with --all; clear them with: agent sessions delete --unanswered --empty)",
							printable.Count(hidden, "session", "sessions"))
					}
					return a.printSessions(list, hidden)
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
						s, err = st.Find(ctx, cmd.Args().First())
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

// unrepliedFlags are sessions delete's flags that pick sessions by status.
func unrepliedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "unanswered", Usage: "also every session with messages but no reply (a failed or interrupted chat)"},
		&cli.BoolFlag{Name: "empty", Usage: "also every session with no message"},
	}
}

func unreplied(cmd *cli.Command) bool { return cmd.Bool("unanswered") || cmd.Bool("empty") }

// unrepliedActive is how long a session stays out of --unanswered and
// --empty after its last activity: it may be a turn under way, or a chat
// about to send its first message.
const unrepliedActive = 10 * time.Minute

// unrepliedSessions is the names of sessions delete's NAME… arguments
// (names or titles), with the sessions --unanswered and --empty pick.
func (a *app) unrepliedSessions(ctx context.Context, ws *core.Workspace, cmd *cli.Command) ([]string, error) {
	st := core.NewSessions(ws.State, a.now)
	var names []string
	for _, n := range cmd.Args().Slice() { // a title names its session too
		s, err := st.Find(ctx, n)
		if errors.Is(err, core.ErrNoSession) {
			names = append(names, n) // unknown: forget.Sessions says so
			continue
		}
		if err != nil {
			return nil, err
		}
		names = append(names, s.Name)
	}
	if !unreplied(cmd) {
		return names, nil
	}
	more, err := st.Unreplied(ctx, cmd.Bool("unanswered"), cmd.Bool("empty"), a.now().Add(-unrepliedActive))
	if err != nil {
		return nil, err
	}
	return append(names, more...), nil
}

// printSessions writes sessions list's rows: --json, tab-separated when
// piped (the status and title last, after the columns scripts knew), a
// table on a terminal.
func (a *app) printSessions(list []core.Session, hidden int) error {
	if a.jsonOut {
		out := make([]sessionJSON, len(list))
		for i, s := range list {
			out[i] = newSessionJSON(s)
		}
		return a.writeJSON(out)
	}
	if len(list) == 0 {
		// An empty list is no error: nothing to print, and a person is
		// told so (or was told what is not listed).
		if hidden == 0 {
			a.emptyHint("no sessions yet (start one with: agent chat)")
		}
		return nil
	}
	if !a.io.OutTTY {
		for _, s := range list {
			writeTSV(a.io.Out, s.Name, s.UpdatedAt.Format(time.RFC3339), fmt.Sprint(s.Turns), s.Model, s.LastUser, s.Status, s.Title)
		}
		return nil
	}
	tw := a.newTable("SESSION", "TITLE", "STATUS", "LAST ACTIVE", "TURNS", "LAST MESSAGE").timed("LAST ACTIVE")
	for _, s := range list {
		tw.row(s.Name, clip(s.Title, 40), s.Status, a.personTime(s.UpdatedAt), fmt.Sprint(s.Turns), clip(s.LastUser, 50))
	}
	return tw.flush()
}

// clip shortens s to one line of at most n runes for a table cell.
func clip(s string, n int) string {
	return printable.Cut(printable.OneLine(s), n)
}

// sessionJSON is a session in --json: every field always present,
// timestamps as every command writes them (core.JSONTime).
type sessionJSON struct {
	Name          string `json:"name"`
	Title         string `json:"title"`  // "" until a message with words
	Status        string `json:"status"` // answered, unanswered or empty
	Model         string `json:"model"`
	CreatedAt     string `json:"created_at"`
	UpdatedAt     string `json:"updated_at"`
	Turns         int    `json:"turns"`
	LastUser      string `json:"last_user"`
	LastAssistant string `json:"last_assistant"`
}

func newSessionJSON(s core.Session) sessionJSON {
	return sessionJSON{Name: s.Name, Title: s.Title, Status: s.Status, Model: s.Model, CreatedAt: core.JSONTime(s.CreatedAt), UpdatedAt: core.JSONTime(s.UpdatedAt),
		Turns: s.Turns, LastUser: s.LastUser, LastAssistant: s.LastAssistant}
}
