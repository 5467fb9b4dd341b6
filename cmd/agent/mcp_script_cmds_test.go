package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"agent/core/mcp/mcptest"
)

// cmdMCPProc watches an MCP server process from a transcript, through the
// pid file the test server writes (MCPTEST_PIDFILE):
//
//	mcpproc started FILE  wait until FILE holds a pid (the server is up)
//	mcpproc gone FILE     wait until that process no longer runs
//
// Both wait without a deadline of their own: the test's is the bound.
func cmdMCPProc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mcpproc started|gone FILE")
	}
	file := ts.MkAbs(args[1])
	pid := func() int {
		b, err := os.ReadFile(file)
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	switch args[0] {
	case "started":
		for pid() == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	case "gone":
		p := pid()
		if p == 0 {
			ts.Fatalf("mcpproc: no pid in %s", args[1])
		}
		for mcptest.Running(p) {
			time.Sleep(10 * time.Millisecond)
		}
		ts.Logf("server %d is gone", p)
	default:
		ts.Fatalf("usage: mcpproc started|gone FILE")
	}
}
