package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/mcp/mcptest"
)

// waitFile waits (the test's deadline is the bound) until file is written.
func waitFile(t *testing.T, file string) int {
	t.Helper()
	for {
		if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
			return readPid(t, file)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerGetsMinimalEnvironment: a server sees the variables its entry
// names and the documented base set, never the rest of the user's
// environment (issue 26.2).
func TestServerGetsMinimalEnvironment(t *testing.T) {
	envfile := filepath.Join(t.TempDir(), "env")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "shell-secret-0000")
	t.Setenv("MCPTEST_TOKEN", "named-token-1111")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("BASH_FUNC_x%%", "() { echo; }")
	srv := stdioServer("MCPTEST_ENVFILE="+envfile, "GITHUB_TOKEN=${MCPTEST_TOKEN}")
	f := newFixture(t, map[string]Server{"t": srv})
	m := f.open(t, Options{})
	m.Prepare(context.Background())
	b, err := os.ReadFile(envfile)
	if err != nil {
		t.Fatalf("the server did not start: %v (notes %s)", err, f.notes.String())
	}
	env := string(b)
	for _, want := range []string{"GITHUB_TOKEN=named-token-1111\n", "MCPTEST_MAIN=1\n", "PATH=" + os.Getenv("PATH") + "\n", "LANG=C.UTF-8\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the server's environment lacks %q:\n%s", want, env)
		}
	}
	for _, leak := range []string{"shell-secret-0000", "AWS_SECRET_ACCESS_KEY", "MCPTEST_TOKEN=", "BASH_FUNC"} {
		if strings.Contains(env, leak) {
			t.Errorf("the server's environment holds %q:\n%s", leak, env)
		}
	}
}

// TestGrandchildKilledOnClose: a server that starts a child of its own (as
// npx starts node) leaves nothing running once it is stopped (issue 29.8).
func TestGrandchildKilledOnClose(t *testing.T) {
	dir := t.TempDir()
	pidfile, childfile := filepath.Join(dir, "pid"), filepath.Join(dir, "child")
	f := newFixture(t, map[string]Server{"t": stdioServer("MCPTEST_PIDFILE="+pidfile, "MCPTEST_CHILD_PIDFILE="+childfile)})
	m := f.open(t, Options{})
	m.Start(context.Background())
	server, child := waitFile(t, pidfile), waitFile(t, childfile)
	if !mcptest.Running(child) {
		t.Fatal("the server's child is not running")
	}
	m.Close()
	waitGone(server)
	// Killed is gone within moments; the bound is generous for a loaded
	// machine, and a child left over is never gone at all.
	deadline := time.Now().Add(30 * time.Second)
	for mcptest.Running(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's child %d still runs 30s after the server was stopped", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dumpText is every text value of every table of db, for "it is nowhere"
// checks.
func dumpText(t *testing.T, f *fixture) string {
	t.Helper()
	var all strings.Builder
	for _, table := range []string{"mcp_servers", "mcp_policy"} {
		rows, err := f.db.Query("SELECT * FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				switch x := v.(type) {
				case string:
					all.WriteString(x + "\n")
				case []byte:
					all.Write(x)
					all.WriteString("\n")
				}
			}
		}
		rows.Close()
	}
	return all.String()
}

// TestExpandedSecretsMasked: a value expanded from ${VAR} is shown and
// stored as ${VAR} in every error text: the failure recorded in state.db,
// the status, the note to the user (issue 26.5).
func TestExpandedSecretsMasked(t *testing.T) {
	t.Setenv("MCPTEST_SECRET", "s3cr3tVALUE")
	f := newFixture(t, map[string]Server{
		"web":   {Type: "http", URL: "http://127.0.0.1:1/mcp?token=${MCPTEST_SECRET}"},
		"stdio": stdioServer("MCPTEST_FAIL=bad token ${MCPTEST_SECRET}"),
	})
	m := f.open(t, Options{StartTimeout: 5 * time.Second})
	m.Probe(context.Background())
	sts := m.Statuses()
	var shown strings.Builder
	for _, st := range sts {
		if st.State != StateFailed {
			t.Fatalf("%s: state %s, want failed", st.Name, st.State)
		}
		shown.WriteString(st.LastError + "\n")
	}
	shown.WriteString(f.notes.String())
	shown.WriteString(dumpText(t, f))
	out := shown.String()
	if strings.Contains(out, "s3cr3tVALUE") {
		t.Fatalf("the expanded secret is shown or stored:\n%s", out)
	}
	if !strings.Contains(out, "token=${MCPTEST_SECRET}") || !strings.Contains(out, "bad token ${MCPTEST_SECRET}") {
		t.Fatalf("the errors do not say where the value stood:\n%s", out)
	}
}

// TestDecisionsHoldNoLiteralToken: an "always" is keyed by a hash of what
// runs, so a token written into an argument is not copied into state.db.
func TestDecisionsHoldNoLiteralToken(t *testing.T) {
	srv := stdioServer()
	srv.Args = append(append([]string(nil), srv.Args...), "--api-key=sk-literal-0123456789abcdef")
	f := newFixture(t, map[string]Server{"t": srv})
	m := f.open(t, Options{})
	if err := m.Allow(context.Background(), "t", "echo"); err != nil {
		t.Fatal(err)
	}
	all := dumpText(t, f)
	if !strings.Contains(all, "echo") {
		t.Fatalf("the decision was not stored:\n%s", all)
	}
	if strings.Contains(all, "sk-literal-0123456789abcdef") {
		t.Errorf("state.db holds the argument's token:\n%s", all)
	}
}
