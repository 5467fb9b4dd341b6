package main

import "github.com/urfave/cli/v3"

func (a *app) profileCommand() *cli.Command {
	return &cli.Command{Name: "profile", Hidden: true, Usage: "not built yet", Action: a.requireSubcommand}
}
