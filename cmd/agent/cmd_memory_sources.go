package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/memory"
)

// memorySourcesCommand: agent memory sources add|list|remove — notes
// folders outside the workspace, indexed and searched in place, never
// written (docs/cli-index.md).
func (a *app) memorySourcesCommand() *cli.Command {
	return &cli.Command{
		Name:  "sources",
		Usage: "notes folders (an Obsidian vault, a directory of markdown) searched in place, never written",
		Commands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "index the markdown under DIR, cited as NAME:path.md",
				ArgsUsage: "NAME DIR",
				Action:    a.runSourcesAdd,
			},
			{
				Name:   "list",
				Usage:  "the sources, their folders and whether they are there",
				Action: a.runSourcesList,
			},
			{
				Name:      "remove",
				Usage:     "stop indexing a source (its folder is not touched)",
				ArgsUsage: "NAME",
				Action:    a.runSourcesRemove,
			},
		},
		Action: a.requireSubcommand,
	}
}

// sourcesHome is the workspace, refused when there is none.
func (a *app) sourcesHome() (string, error) {
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return "", err
	}
	return home, core.Locate(home)
}

func (a *app) runSourcesAdd(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 2 {
		return usagef("sources add takes NAME and DIR")
	}
	home, err := a.sourcesHome()
	if err != nil {
		return err
	}
	src, err := memory.AddSource(home, cmd.Args().Get(0), cmd.Args().Get(1))
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.writeJSON(sourceJSON{Name: src.Name, Dir: src.Dir, Present: true})
	}
	a.infof("added source %s (%s); its notes are indexed at the next search or reindex", src.Name, src.Dir)
	return nil
}

// sourceJSON is the --json shape of a source (docs/cli-index.md).
type sourceJSON struct {
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	Present bool   `json:"present"` // the folder is there now
}

func (a *app) runSourcesList(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("sources list takes no arguments")
	}
	home, err := a.sourcesHome()
	if err != nil {
		return err
	}
	list, err := memory.LoadSources(home)
	if err != nil {
		return err
	}
	out := make([]sourceJSON, 0, len(list))
	for _, s := range list {
		fi, err := os.Stat(s.Dir)
		out = append(out, sourceJSON{Name: s.Name, Dir: s.Dir, Present: err == nil && fi.IsDir()})
	}
	if a.jsonOut {
		return a.writeJSON(out)
	}
	state := func(s sourceJSON) string {
		if s.Present {
			return "ok"
		}
		return "missing"
	}
	if a.io.OutTTY {
		if len(out) == 0 {
			return nil
		}
		tw := a.newTable("NAME", "STATE", "FOLDER")
		for _, s := range out {
			tw.row(s.Name, state(s), s.Dir)
		}
		return tw.flush()
	}
	for _, s := range out {
		if err := writeTSV(a.io.Out, s.Name, state(s), s.Dir); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) runSourcesRemove(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usagef("sources remove takes NAME")
	}
	home, err := a.sourcesHome()
	if err != nil {
		return err
	}
	src, err := memory.RemoveSource(home, cmd.Args().First())
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.writeJSON(sourceJSON{Name: src.Name, Dir: src.Dir})
	}
	a.infof("removed source %s; %s is untouched, its notes leave the index at the next search or reindex", src.Name, src.Dir)
	return nil
}
