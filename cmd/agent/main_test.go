package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
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
			return plainUnlessRacy(env)
		},
		Cmds:                scriptCmds(),
		RequireExplicitExec: false,
	})
}

// racy matches a transcript line that runs a command whose own goroutines
// share memory: a chat turn (streaming, the spinner, signals, recall
// beside the request), the REPL, MCP clients and the server, the index
// watcher, the jobs tick (it runs chats) and embeddings. Such a transcript
// runs "agent" as this binary, race-built under make test. Any line
// but a comment counts (`script -qefc 'agent chat'`, `timeout 9 agent
// memory watch`, …): a line that only mentions one runs race-built too.
var racy = regexp.MustCompile(`(?m)^[^#\n]*\bagent\b[^\n]*\b(chat|mcp|watch|tick|embed)\b`)

// plainUnlessRacy puts the plain build of agent (the crash and stress
// tests' binary, agentBinary) first on a transcript's PATH when this test
// binary is race-built and the transcript runs none of the commands racy
// names. Those commands' work happens in one goroutine of ours, plus the
// index's walks and searches, which the index package's own tests run
// under the race detector; the race detector cannot find a race between
// processes, which is what the concurrency transcripts (log_concurrent, …)
// are about. A race-built start costs ~0.1 s of CPU more than a plain one
// (shadow memory), and the transcripts were most of the package's CPU
// (issue 51; docs/decisions-ollama.md).
func plainUnlessRacy(env *testscript.Env) error {
	if !raceBuilt {
		return nil // "agent" is this binary, plain already
	}
	name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
	text, err := os.ReadFile(filepath.Join("testdata", "script", name+".txtar"))
	if err != nil {
		return err
	}
	if racy.Match(text) {
		return nil
	}
	bin, err := builtAgent()
	if err != nil {
		return err
	}
	env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
	return nil
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

// The transcripts of commands with goroutines of their own run race-built;
// the others run the plain build (plainUnlessRacy).
func TestRacyTranscripts(t *testing.T) {
	for name, want := range map[string]bool{
		"chat": true, "repl": true, "mcp": true, "mcp_serve": true, "memory_index_watch": true, "jobs": true, "memory_embed": true,
		"sync": false, "log": false, "log_concurrent": false, "profile_set": false, "import": false,
	} {
		text, err := os.ReadFile(filepath.Join("testdata", "script", name+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		if got := racy.Match(text); got != want {
			t.Errorf("%s: racy %v, want %v", name, got, want)
		}
	}
}
