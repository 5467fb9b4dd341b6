package main

import "github.com/urfave/cli/v3"

func (a *app) sessionsCommand() *cli.Command {
	return &cli.Command{Name: "sessions", Hidden: true, Usage: "not built yet", Action: a.requireSubcommand}
}
