package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/index"
	"agent/memory/printable"
	"agent/profile"
	"agent/soul"
)

func (a *app) initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create the workspace (idempotent: never overwrites a file)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent-name", Usage: "the assistant's name (sets agent.name once)"},
			&cli.StringFlag{Name: "user-name", Usage: "your name (sets user.name once)"},
			&cli.StringFlag{Name: "from", Usage: "start this device from a workspace another device syncs to this git URL (agent sync --remote URL there)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("init takes no arguments")
			}
			// Validated before anything is created: a bad name is a usage
			// error, not a half-made workspace.
			var names []profileName
			for _, f := range []struct{ flag, key string }{{"agent-name", "agent.name"}, {"user-name", "user.name"}} {
				if v := cmd.String(f.flag); v != "" {
					nv, err := profile.Validate(f.key, v)
					if err != nil {
						return usagef("--%s: %v", f.flag, err)
					}
					names = append(names, profileName{f.key, nv})
				}
			}
			home, err := core.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			if from := cmd.String("from"); from != "" {
				// The files come from the other device; state.db, the
				// index and everything else machine-local are made here.
				o, err := a.syncOptions(home)
				if err != nil {
					return err
				}
				if err := core.Clone(ctx, from, o, a.opening()); err != nil {
					return err
				}
			}
			ws, res, err := core.Init(ctx, home)
			if err != nil {
				return err
			}
			defer ws.Close()
			// Init replayed the journals the clone brought (the other
			// devices' profile records, reminders and jobs).
			if ws.JournalErr != nil {
				a.warnf("%v; the next command tries again", ws.JournalErr)
			}
			a.opening().SayRefused(ws)
			if err := a.forgetKeyFromEnv(ctx, ws); err != nil {
				return err
			}
			if err := a.initProfile(ctx, profile.NewStore(ws.State, a.now), names); err != nil {
				return err
			}
			// The SOUL.md init created (or found) becomes revision 1.
			if _, err := a.loadSoul(ctx, soul.NewStore(ws.State, ws.Path(core.SoulFile), a.now)); err != nil {
				return err
			}
			if built, err := a.buildIndex(ctx, ws); err != nil {
				return err
			} else if built {
				res.Created = append(res.Created, core.IndexFile)
			}
			if a.jsonOut {
				return a.writeJSON(res)
			}
			if len(res.Created) == 0 {
				a.infof("workspace at %s is ready (nothing to create)", home)
			} else {
				a.infof("created workspace at %s: %s", home, strings.Join(res.Created, ", "))
			}
			return nil
		},
	}
}

// buildIndex builds a workspace's missing index.db now, from whatever notes
// are already there, so that the first search or chat (init's, or a first
// contact's) does not start by saying it had to build it. built is false
// when there was one already.
func (a *app) buildIndex(ctx context.Context, ws *core.Workspace) (built bool, err error) {
	if _, err := os.Stat(ws.Path(core.IndexFile)); !errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	ix, err := index.Open(ctx, ws.Home, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		return false, err
	}
	_, err = ix.Reindex(ctx, index.ReindexOptions{})
	ix.Close()
	return err == nil, err
}

type profileName struct{ key, value string }

// initProfile sets each name only if its key is unset: init is bootstrap,
// not a way around `agent profile set`. A different existing value is kept,
// with a hint on how to change it.
func (a *app) initProfile(ctx context.Context, st *profile.Store, names []profileName) error {
	for _, n := range names {
		cur, ok, err := st.Get(ctx, n.key)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			if _, err := st.Set(ctx, profile.ByUser("init"), n.key, n.value); err != nil {
				return err
			}
		case cur != n.value:
			a.warnf("%s is already %q; change it with: agent profile set %s %s", n.key, cur, n.key, printable.Word(n.value))
		}
	}
	return nil
}
