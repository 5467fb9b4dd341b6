//go:build stackfloor

package main

// Built with -tags stackfloor, gofloor also links the other libraries the
// project prescribes (DESIGN.md), whose package initialisation every agent
// process pays before main: the floor of a program on the prescribed stack.
import (
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/ollama/ollama/api"
	_ "github.com/urfave/cli/v3"
	_ "github.com/yuin/goldmark/parser"
)
