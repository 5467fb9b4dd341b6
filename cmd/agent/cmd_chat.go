package main

import "github.com/urfave/cli/v3"

func (a *app) chatCommand() *cli.Command {
	return &cli.Command{Name: "chat", Hidden: true, Usage: "not built yet", Action: a.requireSubcommand}
}
