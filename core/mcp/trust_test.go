package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeConfig replaces the fixture's mcp.json, approving nothing (as an
// import or an edit by hand does).
func (f *fixture) writeConfig(t *testing.T, servers map[string]Server) {
	t.Helper()
	if err := SaveConfig(filepath.Join(f.home, ConfigFile), &Config{Servers: servers}); err != nil {
		t.Fatal(err)
	}
}

// starts counts how many times the agent started a server, from the line
// it writes at the top of each start in the server's log.
func (f *fixture) starts(name string) int {
	b, _ := os.ReadFile(LogPath(f.home, name))
	return strings.Count(string(b), "--- agent started this server")
}

// TestUnapprovedServerNeverStarts: a server in mcp.json the user has not
// approved (imported, or written by hand) is started by nothing — not by
// listing tools, a probe, a chat session or a call — even with its tools
// cached from before; it shows as not approved. Approved once, it runs
// (issue 26.3).
func TestUnapprovedServerNeverStarts(t *testing.T) {
	f := newFixture(t, nil)
	srv := stdioServer()
	f.writeConfig(t, map[string]Server{"imp": srv})
	ctx := context.Background()
	// A list cached by an earlier agent for exactly this configuration.
	resolved, err := Server{Name: "imp", Command: srv.Command, Env: srv.Env}.Resolved(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewStore(f.db, nil).putListed(ctx, "imp", resolved.EntryHash(), []cachedTool{{Name: "echo"}}); err != nil {
		t.Fatal(err)
	}

	m := f.open(t, Options{})
	m.Prepare(ctx)
	m.Probe(ctx)
	m.Start(ctx)
	m.Revive(ctx)
	if tools := m.Tools(); len(tools) != 0 {
		t.Fatalf("an unapproved server's tools are offered: %+v", tools)
	}
	_, err = m.Call(ctx, Tool{Server: "imp", Name: "echo", FullName: "imp__echo"}, map[string]any{"text": "x"})
	if err == nil || !strings.Contains(err.Error(), "not approved to run (approve it with: agent mcp approve imp)") {
		t.Fatalf("call of an unapproved server: %v", err)
	}
	if n := f.starts("imp"); n != 0 {
		t.Fatalf("an unapproved server was started %d times", n)
	}
	if got := identityLines(m); len(got) != 1 || got[0] != "imp: unavailable — not approved" {
		t.Fatalf("identity: %q", got)
	}
	if st := m.Statuses(); st[0].State != StateNotApproved || st[0].Approved {
		t.Fatalf("status: %+v", st[0])
	}
	m.Close()

	approveAll(t, f)
	m2 := f.open(t, Options{})
	m2.Start(ctx)
	if n := f.starts("imp"); n != 1 {
		t.Fatalf("the approved server started %d times, want 1", n)
	}
	if st := m2.Statuses(); st[0].State != StateOK || !st[0].Approved {
		t.Fatalf("status once approved: %+v", st[0])
	}

	// An approval is for the entry as written: changed (here its env,
	// which decides what runs as much as the command), it is needed again.
	changed := srv
	changed.Env = map[string]string{"MCPTEST_MAIN": "1", "NODE_OPTIONS": "--require /tmp/x.js"}
	f.writeConfig(t, map[string]Server{"imp": changed})
	m3 := f.open(t, Options{})
	m3.Start(ctx)
	if st := m3.Statuses(); st[0].State != StateNotApproved {
		t.Fatalf("a changed entry kept its approval: %+v", st[0])
	}
	if n := f.starts("imp"); n != 1 {
		t.Fatalf("a changed, unapproved entry was started (%d starts)", n)
	}
}

// TestDecisionsBelongToTheServer: allow/deny decisions are keyed by the
// server's command line; a server replacing another under the same name
// starts with none, and decisions of servers gone from mcp.json are
// dropped (issue 26.4).
func TestDecisionsBelongToTheServer(t *testing.T) {
	f := newFixture(t, map[string]Server{"gh": stdioServer(), "other": stdioServer()})
	ctx := context.Background()
	m := f.open(t, Options{})
	if err := m.Allow(ctx, "gh", "echo"); err != nil {
		t.Fatal(err)
	}
	st := NewStore(f.db, nil)
	if err := st.SetPolicy(ctx, "other", stdioServer().TargetKey(), "", "deny"); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if d := f.open(t, Options{}).Decision("gh", "echo"); d != "allow" {
		t.Fatalf("decision before the replacement: %s", d)
	}

	// Same name, another program: no allowance carries over.
	other := stdioServer()
	other.Args = []string{"-test.run=^$"}
	f.writeConfig(t, map[string]Server{"gh": other, "keep": stdioServer()})
	approveAll(t, f)
	m2 := f.open(t, Options{})
	if d := m2.Decision("gh", "echo"); d != "ask" {
		t.Fatalf("the replacement inherited the decision: %s", d)
	}
	var rows int
	if err := f.db.QueryRow(`SELECT count(*) FROM mcp_policy`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Fatalf("%d decisions kept for servers no longer in mcp.json", rows)
	}
	// Changing it back does not bring the old decision back either.
	f.writeConfig(t, map[string]Server{"gh": stdioServer()})
	approveAll(t, f)
	if d := f.open(t, Options{}).Decision("gh", "echo"); d != "ask" {
		t.Fatalf("a dropped decision came back: %s", d)
	}
}

// TestQuestionsStartNothing: in a chat session, asking which tools are
// offered or building the identity lines never starts a server, however
// long it has been down; Revive, the explicit step, does (issue 29.3).
func TestQuestionsStartNothing(t *testing.T) {
	f := newFixture(t, map[string]Server{"t": stdioServer()})
	now := time.Now()
	clock := func() time.Time { return now }
	m := f.open(t, Options{Now: clock})
	ctx := context.Background()
	m.Start(ctx)
	if _, err := m.Call(ctx, toolNamed(t, m, "t__die"), nil); err == nil {
		t.Fatal("die did not fail")
	}
	for !strings.Contains(f.notes.String(), "integration t stopped") {
		time.Sleep(10 * time.Millisecond)
	}
	now = now.Add(time.Hour)
	for range 3 {
		m.Tools()
		identityLines(m)
		m.Statuses()
		m.Lookup("t__echo")
	}
	if n := f.starts("t"); n != 1 {
		t.Fatalf("questions started the server: %d starts", n)
	}
	m.Revive(ctx)
	for len(m.Tools()) != 7 {
		time.Sleep(10 * time.Millisecond)
	}
	if n := f.starts("t"); n != 2 {
		t.Fatalf("Revive: %d starts, want 2", n)
	}
	m.Revive(ctx) // running: nothing to do
	if n := f.starts("t"); n != 2 {
		t.Fatalf("Revive of a running server: %d starts", n)
	}
}
