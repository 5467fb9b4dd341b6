package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
)

func (a *app) initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create the workspace (idempotent: never overwrites a file)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent-name", Usage: "the assistant's name (sets agent.name once)"},
			&cli.StringFlag{Name: "user-name", Usage: "your name (sets user.name once)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("init takes no arguments")
			}
			home, err := core.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			ws, res, err := core.Init(ctx, home)
			if err != nil {
				return err
			}
			defer ws.Close()
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
