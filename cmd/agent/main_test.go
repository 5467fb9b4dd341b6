package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"agent/core/mcp/mcptest"
)

// TestMain lets testscript run the real main as the "agent" command, in a
// child process, so transcripts exercise exactly what a user runs.
func TestMain(m *testing.M) {
	testscript.Main(testingM{m}, map[string]func(){
		"agent": func() { os.Exit(run(context.Background(), os.Args, systemStreams())) },
		// An MCP server built with the official SDK, for the mcp transcripts.
		"mcptestserver": mcptest.Main,
	})
}

// testingM runs the tests of this package as go test started them, with
// two changes: -parallel defaults to scriptParallel instead of GOMAXPROCS,
// and the harness's shared binary is removed at the end.
type testingM struct{ m *testing.M }

// scriptParallel is how many parallel tests (each transcript is one) run at
// once unless -parallel says otherwise. They mostly wait on the processes
// they start (a command's open, fsync and exit), not on a CPU, so with
// GOMAXPROCS (2 here) the 70-odd transcripts queued for minutes behind each
// other with both CPUs nearly idle (issue 51).
const scriptParallel = 8

func (tm testingM) Run() int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(max(scriptParallel, runtime.GOMAXPROCS(0)))); err != nil {
			panic(err)
		}
	}
	defer removeAgentBinary()
	return tm.m.Run()
}

// TestScripts runs the CLI transcripts in testdata/script. Each runs in a
// fresh directory with HOME and AGENT_HOME pointing inside it, so nothing
// touches the real user's workspace. Custom commands are in scriptCmds.
func TestScripts(t *testing.T) {
	t.Parallel() // beside the other waiting tests (crash, kill -9), not after them
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", filepath.Join(env.WorkDir, "userhome"))
			env.Setenv("AGENT_HOME", filepath.Join(env.WorkDir, "ws"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing listens: no test reaches a real server by accident
			env.Setenv("GORACE", quickRaceExit(os.Getenv("GORACE")))
			return nil
		},
		Cmds:                scriptCmds(),
		RequireExplicitExec: false,
	})
}

// quickRaceExit adds atexit_sleep_ms=0 to GORACE options (keeping the
// user's). "agent" in a transcript is this test binary, built with -race
// under make test, and a race-built program sleeps atexit_sleep_ms (1000 by
// default) before it exits, to let goroutines still running find a race:
// a second for each of the ~1000 agent commands the transcripts run, most
// of their time (issue 51). A race found is reported when it happens, and
// the exit waits for a report in progress, so only a race in a goroutine
// still running at exit goes unseen, which a transcript cannot count on
// catching anyway.
func quickRaceExit(gorace string) string {
	if strings.Contains(gorace, "atexit_sleep_ms") {
		return gorace
	}
	return strings.TrimSpace(gorace + " atexit_sleep_ms=0")
}
