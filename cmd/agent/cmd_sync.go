package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/devsync"
	"agent/core/jobs"
	"agent/memory/printable"
)

func (a *app) syncCommand() *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "share the workspace with your other devices through git: commit, fetch, merge, push",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Usage: "the git remote to sync with (any URL your git can push to); remembered as origin once a fetch from it worked"},
			&cli.BoolFlag{Name: "keep-local", Usage: "when the remote's branch does not continue what this device last synced (or holds what sync never takes): push this device's history over it (the remote's is kept here under refs/agent/kept/)"},
			&cli.BoolFlag{Name: "take-remote", Usage: "when the remote's branch does not continue what this device last synced: move onto it, carrying over this device's changes since the last sync (its history is kept under refs/agent/kept/)"},
		},
		Commands: []*cli.Command{a.syncKeyCommand()},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("sync takes no arguments (the remote is --remote URL)")
			}
			home, err := core.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			o, err := a.syncOptions(home)
			if err != nil {
				return err
			}
			o.Remote = cmd.String("remote")
			o.KeepLocal, o.TakeRemote = cmd.Bool("keep-local"), cmd.Bool("take-remote")
			if o.KeepLocal && o.TakeRemote {
				return usagef("--keep-local and --take-remote say opposite things: give one")
			}
			rep, err := core.Sync(ctx, o, a.opening())
			if err != nil {
				return interrupted(err, syncKept(rep))
			}
			if a.jsonOut {
				return a.writeJSON(rep)
			}
			a.infof("%s", rep.Summary())
			return nil
		},
	}
}

// syncOptions are what every sync of home shares: the merge driver is this
// binary, each device is named by its host name.
func (a *app) syncOptions(home string) (devsync.Options, error) {
	exe, err := os.Executable()
	if err != nil {
		return devsync.Options{}, fmt.Errorf("sync: find the agent binary for the merge driver: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return devsync.Options{}, fmt.Errorf("sync: find the agent binary for the merge driver: %w", err)
	}
	device, _ := os.Hostname()
	return devsync.Options{
		Home:   home,
		Driver: jobs.ShellQuote(exe) + " merge-file -- %O %A %B %P",
		Device: device,
	}, nil
}

// mergeFileCommand is the git merge driver sync registers (%O %A %B %P):
// git calls it for memory files, in the workspace's top directory.
func (a *app) mergeFileCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge-file",
		Usage:     "git merge driver for memory files (registered by agent sync)",
		ArgsUsage: "BASE OURS THEIRS PATH",
		Hidden:    true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 4 {
				return usagef("usage: agent merge-file BASE OURS THEIRS PATH (git's %%O %%A %%B %%P)")
			}
			base, ours, theirs, rel := cmd.Args().Get(0), cmd.Args().Get(1), cmd.Args().Get(2), cmd.Args().Get(3)
			if filepath.ToSlash(filepath.Clean(rel)) == core.SoulFile {
				// git runs the driver at the top of the work tree.
				home, err := os.Getwd()
				if err != nil {
					return err
				}
				if err := core.KeepTheirSoul(ctx, home, ours, theirs, a.now); err != nil {
					return err
				}
			}
			r, err := devsync.DriverFiles(base, ours, theirs, rel)
			if err != nil {
				return err
			}
			if r.Conflicts > 0 {
				a.warnf("%s: both devices changed the same lines in %d place(s); both versions are kept (agent doctor names them)", printable.Escape(rel), r.Conflicts)
			}
			return nil
		},
	}
}

// syncKept says what an interrupted sync leaves. Its steps are each whole
// and the next sync resumes them (docs/cli-sync.md); what it can tell is
// whether this device's changes were committed and pushed.
func syncKept(rep devsync.Report) string {
	const again = "run agent sync again to finish it (each step is whole: nothing is half-done)"
	switch {
	case rep.Pushed:
		return "this device's changes reached the remote; " + again
	case rep.Committed:
		return "this device's changes are committed here but not pushed; " + again
	}
	return "the exchange with the remote did not finish; " + again
}
