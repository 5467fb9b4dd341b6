package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"agent/core/mcp/mcptest"
)

// TestMain lets testscript run the real main as the "agent" command, in a
// child process, so transcripts exercise exactly what a user runs.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agent": func() { os.Exit(run(context.Background(), os.Args, systemStreams())) },
		// An MCP server built with the official SDK, for the mcp transcripts.
		"mcptestserver": mcptest.Main,
	})
}

// TestScripts runs the CLI transcripts in testdata/script. Each runs in a
// fresh directory with HOME and AGENT_HOME pointing inside it, so nothing
// touches the real user's workspace. Custom commands are in scriptCmds.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", filepath.Join(env.WorkDir, "userhome"))
			env.Setenv("AGENT_HOME", filepath.Join(env.WorkDir, "ws"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing listens: no test reaches a real server by accident
			return nil
		},
		Cmds:                scriptCmds(),
		RequireExplicitExec: false,
	})
}
