package main

import (
	"agent/core/memrev"
	"context"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/memory"
	"agent/memory/secrets"
)

// memoryWriteCommands: agent memory add.
func (a *app) memoryWriteCommands() []*cli.Command {
	return []*cli.Command{{
		Name:      "add",
		Usage:     "append a fact to MEMORY.md under a ## section",
		ArgsUsage: "TEXT|-",
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name:        "section",
				Usage:       "the ## section to add under (created at the end of MEMORY.md if missing)",
				DefaultText: memory.DefaultSection,
			},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			text, err := a.textArg(cmd, "fact")
			if err != nil {
				return err
			}
			return a.runMemoryAdd(ctx, memoryAddOptions{Text: text, Section: cmd.String("section")})
		},
	}}
}

type memoryAddOptions struct {
	Text    string
	Section string // "" means memory.DefaultSection
}

// appendJSON is the --json shape of memory add and log: where the text
// landed, with workspace-relative path and 1-based inclusive lines, so it
// can be cited like a search hit.
type appendJSON struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Section   string `json:"section,omitempty"`
}

func (a *app) runMemoryAdd(ctx context.Context, opts memoryAddOptions) error {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	section := opts.Section
	if section == "" {
		section = memory.DefaultSection
	}
	res, err := memrev.AppendFact(ctx, ws.State, ws.Home, memrev.User, "agent memory add", opts.Text, section, a.now)
	if err != nil {
		return err
	}
	return a.reportAppend(res, section)
}

// reportAppend prints where an append landed: JSON on stdout when asked,
// else a confirmation for a person at a terminal; nothing for scripts.
func (a *app) reportAppend(res memory.AppendResult, section string) error {
	if len(res.Secrets) > 0 {
		// Said even under --quiet and --json: what was written is not what was typed.
		a.warnf("not written to memory: %s (a marker such as %s stands in its place)",
			strings.Join(res.Secrets, ", "), secrets.Marker(res.Secrets[0]))
	}
	if a.jsonOut {
		return a.writeJSON(appendJSON{Path: res.Path, StartLine: res.StartLine, EndLine: res.EndLine, Section: section})
	}
	if a.io.ErrTTY {
		where := res.Path
		if section != "" {
			where += " › " + section
		}
		a.infof("added to %s (lines %d-%d)", where, res.StartLine, res.EndLine)
	}
	return nil
}
