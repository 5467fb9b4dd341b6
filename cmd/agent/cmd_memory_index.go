package main

import "github.com/urfave/cli/v3"

// memoryIndexCommands: agent memory reindex, search, watch, status.
func (a *app) memoryIndexCommands() []*cli.Command { return nil }
