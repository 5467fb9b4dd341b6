package main

import "github.com/urfave/cli/v3"

func (a *app) promptCommand() *cli.Command {
	return &cli.Command{Name: "prompt", Hidden: true, Usage: "not built yet", Action: a.requireSubcommand}
}
