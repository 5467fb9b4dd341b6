package mcp

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"agent/core/mcp/mcptest"
)

// TestMain lets the test binary serve as the stdio test server.
func TestMain(m *testing.M) {
	if os.Getenv("MCPTEST_MAIN") == "1" {
		mcptest.Main()
	}
	os.Exit(m.Run())
}

// testDB is a real state.db with this package's schema.
func testDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "state.db")+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	names, _ := fs.Glob(Migrations, "migrations/*.sql")
	for _, n := range names {
		body, _ := fs.ReadFile(Migrations, n)
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// stdioServer is a config entry running the test server.
func stdioServer(env ...string) Server {
	e := map[string]string{"MCPTEST_MAIN": "1"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return Server{Command: os.Args[0], Env: e}
}

type fixture struct {
	home  string
	db    *sql.DB
	notes *mcptest.Notes
}

func newFixture(t testing.TB, servers map[string]Server) *fixture {
	t.Helper()
	f := &fixture{home: t.TempDir(), db: testDB(t), notes: &mcptest.Notes{}}
	if err := SaveConfig(filepath.Join(f.home, ConfigFile), &Config{Servers: servers}); err != nil {
		t.Fatal(err)
	}
	approveAll(t, f)
	return f
}

// approveAll approves every server of the fixture's mcp.json, as `agent mcp
// add` does for what it adds.
func approveAll(t testing.TB, f *fixture) {
	t.Helper()
	cfg, err := LoadConfig(filepath.Join(f.home, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cfg.Names() {
		s := cfg.Servers[name]
		if err := NewStore(f.db, nil).Approve(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) open(t testing.TB, opts Options) *Manager {
	t.Helper()
	opts.Home, opts.Store, opts.Notify = f.home, NewStore(f.db, nil), f.notes.Add
	m, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func toolNamed(t *testing.T, m *Manager, full string) Tool {
	t.Helper()
	tl, ok := m.Lookup(full)
	if !ok {
		var names []string
		for _, x := range m.Tools() {
			names = append(names, x.FullName)
		}
		t.Fatalf("tool %s not offered; offered: %v", full, names)
	}
	return tl
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits (without a deadline of its own: the test's) for pid to
// be reaped or gone.
func waitGone(pid int) {
	for alive(pid) {
		var ws syscall.WaitStatus
		if p, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); p == pid {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStdioListCallCacheAndLazyStart(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	f := newFixture(t, map[string]Server{"gh": stdioServer("MCPTEST_PIDFILE=" + pidfile)})
	ctx := context.Background()

	m := f.open(t, Options{})
	if got := identityLines(m); len(got) != 1 || got[0] != "gh: unavailable — not started" {
		t.Fatalf("before any start: %q", got)
	}
	m.Prepare(ctx) // nothing cached: lists the tools
	if got := identityLines(m); len(got) != 1 || got[0] != "gh: 7 tools" {
		t.Fatalf("after listing: %q (notes %s)", got, f.notes.String())
	}
	res, err := m.Call(ctx, toolNamed(t, m, "gh__echo"), map[string]any{"text": "hi"})
	if err != nil || res.Text != "echo: hi" || res.IsError {
		t.Fatalf("echo: %+v %v", res, err)
	}
	first := readPid(t, pidfile)
	m.Close()
	waitGone(first)
	os.Remove(pidfile)

	// A second process: the list comes from state.db, no server starts.
	m2 := f.open(t, Options{})
	m2.Prepare(ctx)
	if len(m2.Tools()) != 7 {
		t.Fatalf("cached tools: %d", len(m2.Tools()))
	}
	if _, err := os.Stat(pidfile); err == nil {
		t.Fatal("a one-shot with a cached list started the server")
	}
	res, err = m2.Call(ctx, toolNamed(t, m2, "gh__echo"), map[string]any{"text": "again"})
	if err != nil || res.Text != "echo: again" {
		t.Fatalf("lazy call: %+v %v", res, err)
	}
	pid := readPid(t, pidfile)
	m2.Close()
	waitGone(pid)
	if alive(pid) {
		t.Fatal("server alive after Close")
	}

	// A changed configuration invalidates the cache.
	cfg, _ := LoadConfig(filepath.Join(f.home, ConfigFile))
	s := cfg.Servers["gh"]
	s.Args = []string{"-test.run=none"}
	cfg.Servers["gh"] = s
	if err := SaveConfig(filepath.Join(f.home, ConfigFile), cfg); err != nil {
		t.Fatal(err)
	}
	m3 := f.open(t, Options{})
	if len(m3.Tools()) != 0 {
		t.Fatal("tools offered from a cache of another configuration")
	}
}

func TestFailingServerReportedWithItsStderr(t *testing.T) {
	f := newFixture(t, map[string]Server{
		"broken": stdioServer("MCPTEST_FAIL=cannot reach api.example.com"),
		"gone":   {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"ok":     stdioServer(),
	})
	m := f.open(t, Options{})
	m.Start(context.Background())
	lines := strings.Join(identityLines(m), "\n")
	want := "broken: unavailable — failed to start\ngone: unavailable — failed to start\nok: 7 tools"
	if lines != want {
		t.Fatalf("identity lines:\n%s\nwant:\n%s", lines, want)
	}
	n := f.notes.String()
	if !strings.Contains(n, "integration broken unavailable") || !strings.Contains(n, "cannot reach api.example.com") {
		t.Fatalf("the failure and the server's stderr are not reported:\n%s", n)
	}
	for _, tl := range m.Tools() {
		if tl.Server != "ok" {
			t.Fatalf("a failed server's tool is offered: %s", tl.FullName)
		}
	}
	log, _ := os.ReadFile(LogPath(f.home, "broken"))
	if !strings.Contains(string(log), "cannot reach api.example.com") {
		t.Fatalf("stderr not in the log file: %q", log)
	}
	var st Status
	for _, s := range m.Statuses() {
		if s.Name == "broken" {
			st = s
		}
	}
	if st.State != StateFailed || !strings.Contains(st.LastError, "cannot reach") {
		t.Fatalf("status: %+v", st)
	}
}

func TestCallFailures(t *testing.T) {
	f := newFixture(t, map[string]Server{"t": stdioServer()})
	ctx := context.Background()
	// The short call timeout is the slow call's alone: on a busy machine the
	// other calls may well take 300 ms to answer (issue 51).
	slow := f.open(t, Options{CallTimeout: 300 * time.Millisecond})
	slow.Start(ctx)
	_, err := slow.Call(ctx, toolNamed(t, slow, "t__slow"), map[string]any{"seconds": 600})
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("slow: %v", err)
	}
	slow.Close()

	m := f.open(t, Options{MaxResult: 1000})
	m.Start(ctx)
	res, err := m.Call(ctx, toolNamed(t, m, "t__fail"), nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text, "the backend said no") {
		t.Fatalf("fail: %+v %v", res, err)
	}

	res, err = m.Call(ctx, toolNamed(t, m, "t__huge"), nil)
	if err != nil || len(res.Text) != 1000 || res.Cut != mcptest.HugeSize-1000 || res.Total != mcptest.HugeSize {
		t.Fatalf("huge: len %d cut %d total %d err %v", len(res.Text), res.Cut, res.Total, err)
	}

	die := toolNamed(t, m, "t__die")
	_, err = m.Call(ctx, die, nil)
	if err == nil || !strings.Contains(err.Error(), "out of cheese") {
		t.Fatalf("die: %v", err)
	}
	// The death is noticed and reported; the tools leave the request.
	for !strings.Contains(f.notes.String(), "integration t stopped") {
		time.Sleep(10 * time.Millisecond)
	}
	if got := identityLines(m); got[0] != "t: unavailable — stopped" {
		t.Fatalf("after death: %q", got)
	}
	if len(m.Tools()) != 0 {
		t.Fatal("a dead server's tools are still offered")
	}
}

func TestHTTPServer(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler())
	defer srv.Close()
	t.Setenv("MCPTEST_URL", srv.URL)
	f := newFixture(t, map[string]Server{"web": {Type: "http", URL: "${MCPTEST_URL}", Headers: map[string]string{"Authorization": "Bearer x"}}})
	m := f.open(t, Options{})
	m.Start(context.Background())
	res, err := m.Call(context.Background(), toolNamed(t, m, "web__echo"), map[string]any{"text": "over http"})
	if err != nil || res.Text != "echo: over http" {
		t.Fatalf("http echo: %+v %v (notes %s)", res, err, f.notes.String())
	}
}

func TestPolicyAndBudget(t *testing.T) {
	f := newFixture(t, map[string]Server{"a": stdioServer(), "b": stdioServer()})
	ctx := context.Background()
	st := NewStore(f.db, nil)
	target := stdioServer().TargetKey()
	if err := st.SetPolicy(ctx, "a", target, "", "deny"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetPolicy(ctx, "b", target, "search", "allow"); err != nil {
		t.Fatal(err)
	}
	m := f.open(t, Options{ToolBudget: 3})
	m.Start(ctx)
	tools := m.Tools()
	if len(tools) != 3 || tools[0].FullName != "b__search" || tools[0].Policy != "allow" {
		t.Fatalf("budgeted tools: %+v", tools)
	}
	for _, tl := range tools {
		if tl.Server == "a" {
			t.Fatalf("denied server's tool offered: %s", tl.FullName)
		}
	}
	// Tools is a getter: asked any number of times, it tells nobody. Offer,
	// the turn's call, gives the same tools and the note, once.
	m.Tools()
	if strings.Contains(f.notes.String(), "over the budget") {
		t.Fatalf("Tools, a getter, gave the budget note: %s", f.notes.String())
	}
	if offered := m.Offer(); !reflect.DeepEqual(offered, tools) {
		t.Fatalf("Offer gave %+v, Tools %+v", offered, tools)
	}
	m.Offer()
	if n := strings.Count(f.notes.String(), "7 integration tools, over the budget of 3: 4 left out"); n != 1 {
		t.Fatalf("budget reported %d times, want once: %s", n, f.notes.String())
	}
	if got := identityLines(m); got[0] != "a: 0 tools" || got[1] != "b: 7 tools" {
		t.Fatalf("identity: %q", got)
	}
	// A per-tool allow after a server-wide deny wins for that tool.
	if err := m.Allow(ctx, "a", "echo"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := LoadConfig(filepath.Join(f.home, ConfigFile))
	tr, _ := st.trust(ctx, cfg)
	p := tr.policy
	if p.Decision("a", "echo") != "allow" || p.Decision("a", "fail") != "deny" || p.Decision("b", "echo") != "ask" {
		t.Fatalf("policy: %v", p)
	}
}

// BenchmarkOneShotCached is what a one-shot turn adds with 3 integrations
// whose tools are cached and none is called: open (read mcp.json, the
// policy, the cache), the tools offered, the identity lines.
func BenchmarkOneShotCached(b *testing.B) {
	f := newFixture(b, map[string]Server{"a": stdioServer(), "b": stdioServer(), "c": stdioServer()})
	m := f.open(b, Options{})
	m.Probe(context.Background())
	m.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Open(context.Background(), Options{Home: f.home, Store: NewStore(f.db, nil)})
		if err != nil {
			b.Fatal(err)
		}
		m.Prepare(context.Background())
		if len(m.Tools()) != 21 || len(identityLines(m)) != 3 {
			b.Fatal("tools not cached")
		}
		m.Close()
	}
}

// TestStartInterruptedIsNotAFailure: a one-shot turn stopped (Ctrl-C,
// SIGTERM) while a server starts must not record the server as failed,
// or the next turns would not offer its tools for minutes.
func TestStartInterruptedIsNotAFailure(t *testing.T) {
	f := newFixture(t, map[string]Server{"gh": stdioServer()})
	m := f.open(t, Options{})
	m.Prepare(context.Background()) // lists and caches the tools
	m.Close()

	m2 := f.open(t, Options{})
	tool := toolNamed(t, m2, "gh__echo")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the agent is stopping as the server would start
	if _, err := m2.Call(ctx, tool, map[string]any{"text": "hi"}); err == nil {
		t.Fatal("a call with a cancelled context succeeded")
	}
	m2.Close()

	m3 := f.open(t, Options{})
	m3.Prepare(context.Background())
	if got := identityLines(m3); len(got) != 1 || got[0] != "gh: 7 tools" {
		t.Fatalf("after an interrupted start: %q (notes %s)", got, f.notes.String())
	}
	if len(m3.Tools()) != 7 {
		t.Fatalf("tools offered after an interrupted start: %d", len(m3.Tools()))
	}
}

// identityLines are the summaries as text ("github: 12 tools"), as core
// renders them for the identity section.
func identityLines(m *Manager) []string {
	var lines []string
	for _, s := range m.Summaries() {
		lines = append(lines, s.String())
	}
	return lines
}

// A failed call's text is masked, but the error still unwraps to its cause:
// the caller's deadline or cancellation (the chat loop tells a Ctrl-C from
// a failure with errors.Is) and the server's own error.
func TestMaskedCallErrorKeepsItsCause(t *testing.T) {
	t.Setenv("MCPTEST_SECRET", "s3cr3tVALUE")
	f := newFixture(t, map[string]Server{"t": stdioServer("MCPTEST_TOKEN=${MCPTEST_SECRET}")})
	m := f.open(t, Options{CallTimeout: time.Minute})
	m.Start(context.Background())

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := m.Call(ctx, toolNamed(t, m, "t__slow"), map[string]any{"seconds": 600})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call past the caller's deadline: %v does not unwrap to context.DeadlineExceeded", err)
	}

	// The server names the unknown tool in its error: the name holds the
	// expanded value, which the text must show as ${MCPTEST_SECRET}.
	_, err = m.Call(context.Background(), Tool{Server: "t", Name: "no-such-tool-s3cr3tVALUE", FullName: "t__no-such-tool"}, nil)
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Errorf("a call the server refused: %v (%T) does not unwrap to its *jsonrpc.Error", err, err)
	}
	if err == nil || strings.Contains(err.Error(), "s3cr3tVALUE") || !strings.Contains(err.Error(), "${MCPTEST_SECRET}") {
		t.Errorf("the error shows the expanded value: %v", err)
	}
}
