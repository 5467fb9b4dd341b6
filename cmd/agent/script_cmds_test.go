package main

import (
	"database/sql"
	"errors"
	"os/exec"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"agent/core/ollamatest"
)

// scriptCmds are custom commands for the transcripts in testdata/script
// (wired into testscript.Params.Cmds by TestScripts):
//
//	exits CODE PROG ARGS...  run PROG like exec, keeping its stdout and stderr
//	                         for the next stdout/stderr checks, and fail unless
//	                         it exits with status CODE (exec only tells zero
//	                         from non-zero; scripts depend on 2 vs 3)
//	fakeollama ...           a protocol-faithful fake Ollama (see
//	                         ollamatest.ScriptCommand); start sets OLLAMA_HOST
//	await exists|line ...    wait for a file or a line in it (cmdAwait)
//	sqlite FILE SQL...       run each SQL statement on the SQLite database FILE,
//	                         creating it if missing (to build a foreign, newer
//	                         or hand-edited state.db as another program would)
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits":      cmdExits,
		"sqlite":     cmdSQLite,
		"fakeollama": ollamatest.ScriptCommand(),
		"mcpproc":    cmdMCPProc, // mcp_script_cmds_test.go
		"await":      cmdAwait,   // await_cmd_test.go
	}
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits does not support !")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad CODE %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

func cmdSQLite(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sqlite FILE SQL...")
	}
	db, err := sql.Open("sqlite3", "file:"+ts.MkAbs(args[0])+"?mode=rwc&_busy_timeout=10000")
	if err != nil {
		ts.Fatalf("sqlite: %v", err)
	}
	defer db.Close()
	for _, stmt := range args[1:] {
		if _, err = db.Exec(stmt); err != nil {
			break
		}
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("sqlite: %v", err)
	case err == nil && neg:
		ts.Fatalf("sqlite: unexpected success")
	}
}
