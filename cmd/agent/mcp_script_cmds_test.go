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
//	mcpproc started FILE  wait until FILE holds a pid (the server is up),
//	                      woken by its writes (awaitFile)
//	mcpproc gone FILE     wait until that process no longer runs: it is
//	                      agent's child, not ours, so nothing wakes us when
//	                      it ends and this looks every 10 ms, bounded by
//	                      the test's deadline
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
		if err := awaitFile(file, func() bool { return pid() != 0 }); err != nil {
			ts.Fatalf("mcpproc started %s: %v", args[1], err)
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
