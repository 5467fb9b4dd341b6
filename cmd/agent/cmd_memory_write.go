package main

import "github.com/urfave/cli/v3"

// memoryWriteCommands: agent memory add.
func (a *app) memoryWriteCommands() []*cli.Command { return nil }
