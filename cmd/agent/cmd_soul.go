package main

import "github.com/urfave/cli/v3"

func (a *app) soulCommand() *cli.Command {
	return &cli.Command{Name: "soul", Hidden: true, Usage: "not built yet", Action: a.requireSubcommand}
}
