package main

import "github.com/urfave/cli/v3"

func (a *app) logCommand() *cli.Command {
	return &cli.Command{Name: "log", Hidden: true, Usage: "not built yet", Action: a.requireSubcommand}
}
