package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/core/mcpserve"
)

// noOllama points every later process at a listener that counts the
// connections it gets: agent mcp serve never calls a model.
func (h *harness) noOllama() *atomic.Int32 {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	h.setenv("OLLAMA_HOST", ln.Addr().String())
	return &n
}

// mcpServer is a running `agent mcp serve` on stdio with the Go SDK's
// client connected to it, as a coding agent starts it.
type mcpServer struct {
	cmd    *exec.Cmd
	cs     *sdk.ClientSession
	stderr *bytes.Buffer
}

func (h *harness) startServe(name string, args ...string) (*mcpServer, error) {
	cmd := exec.Command(h.bin, append([]string{"mcp", "serve"}, args...)...)
	cmd.Env, cmd.Dir = h.env, h.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("start agent mcp serve: %w (stderr: %s)", err, stderr.String())
	}
	return &mcpServer{cmd: cmd, cs: cs, stderr: &stderr}, nil
}

// call calls a tool; a tool error is an error.
func (s *mcpServer) call(tool string, args map[string]any) (string, error) {
	res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", tool, b.String())
	}
	return b.String(), nil
}

// Eight servers at once, each writing notes and facts and searching, with
// a loop of agent log, the REPL's /remember (Ollama out of its reach) and
// agent memory watch beside them: no error, no
// lock timeout, every entry exactly once, and what one process wrote is
// found by every running server's next search. No server calls a model.
func TestMCPServeEightServersAndLog(t *testing.T) {
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "profile", "set", "user.timezone", "UTC")
	calls := h.noOllama()
	const servers, writes = 8, 8

	watch, _, watchErr := h.command("", nil, "memory", "watch")
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		watch.Process.Signal(syscall.SIGTERM)
		watch.Wait()
		if s := watchErr.String(); strings.Contains(s, "lock") || strings.Contains(s, "error") {
			t.Errorf("memory watch: %s", s)
		}
	}()

	// The REPL, without a model: its / commands write as the user.
	repl := h.startPTY([]string{"OLLAMA_HOST=127.0.0.1:1"}, "chat", "--session", "beside")
	repl.expect(`staying up: / commands work without the model`)
	repl.expect(prompt)

	var srvs []*mcpServer
	for i := range servers {
		s, err := h.startServe(fmt.Sprintf("client-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		defer s.cs.Close()
		srvs = append(srvs, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, servers*writes*2+writes)
	for i, s := range srvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range writes {
				kind := "note"
				if j%4 == 0 {
					kind = "fact"
				}
				if _, err := s.call(mcpserve.ToolRemember, map[string]any{"text": fmt.Sprintf("entry s%dn%d of the stress run", i, j), "kind": kind}); err != nil {
					errs <- fmt.Errorf("server %d write %d: %w", i, j, err)
				}
				if _, err := s.call(mcpserve.ToolSearch, map[string]any{"query": "stress run", "k": 3}); err != nil {
					errs <- fmt.Errorf("server %d search %d: %w", i, j, err)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := range writes {
			repl.send(fmt.Sprintf("/remember entry repl%d from the REPL", j) + keyEnter)
			repl.expect(`agent: remembered in MEMORY\.md:\d+`)
			repl.expect(prompt)
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := range writes {
			if r := h.run("", "-q", "log", fmt.Sprintf("entry cli%d from agent log", j)); r.code != 0 || r.stderr != "" {
				errs <- fmt.Errorf("agent log %d: %s", j, r)
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := h.logs() + h.read("MEMORY.md")
	for i := range servers {
		for j := range writes {
			if n := strings.Count(all, fmt.Sprintf("entry s%dn%d of the stress run", i, j)); n != 1 {
				t.Errorf("entry s%dn%d is there %d times", i, j, n)
			}
		}
		if !strings.Contains(all, fmt.Sprintf("(via client-%d)", i)) || !strings.Contains(all, fmt.Sprintf("· via client-%d\n", i)) {
			t.Errorf("client-%d's entries do not say who wrote them", i)
		}
	}
	for j := range writes {
		if n := strings.Count(all, fmt.Sprintf("entry cli%d from agent log", j)); n != 1 {
			t.Errorf("agent log's entry %d is there %d times", j, n)
		}
		if n := strings.Count(all, fmt.Sprintf("entry repl%d from the REPL", j)); n != 1 {
			t.Errorf("the REPL's fact %d is there %d times", j, n)
		}
	}
	repl.send(keyCtrlD)
	if err := repl.wait(); err != nil {
		t.Errorf("the REPL: %v", err)
	}
	h.checkLogTitles()
	// Each running server finds what another process wrote last.
	last := fmt.Sprintf("cli%d", writes-1)
	for i, s := range srvs {
		out, err := s.call(mcpserve.ToolSearch, map[string]any{"query": last})
		if err != nil || !strings.Contains(out, "entry "+last+" from agent log") {
			t.Errorf("server %d does not find agent log's last note: %v\n%s", i, err, out)
		}
	}
	for i, s := range srvs {
		s.cs.Close()
		if st := s.stderr.String(); st != "" {
			t.Errorf("server %d said: %s", i, st)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the servers connected to Ollama %d times", n)
	}
}

// A server killed (SIGKILL) while it writes leaves every note whole or
// absent, and once at most; a write it reported done is there once.
func TestMCPServeKilledMidWrite(t *testing.T) {
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "profile", "set", "user.timezone", "UTC")
	rng := rand.New(rand.NewPCG(47, 47))
	note := func(round, i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "BEGIN %d.%d\n", round, i)
		for l := range 200 {
			fmt.Fprintf(&b, "line %d of note %d.%d, long enough to take a while to write\n", l, round, i)
		}
		fmt.Fprintf(&b, "END %d.%d", round, i)
		return b.String()
	}
	type sent struct {
		text string
		done bool
		fact bool
	}
	var all []sent
	for round := range crashKills(t) / 2 {
		s, err := h.startServe("killed")
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var mine []sent
		stop, finished := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(finished)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				text, fact := note(round, i), i%3 == 2
				if fact {
					text = fmt.Sprintf("FACT %d.%d stays whole", round, i)
				}
				kind := map[bool]string{true: "fact", false: "note"}[fact]
				_, err := s.call(mcpserve.ToolRemember, map[string]any{"text": text, "kind": kind})
				mu.Lock()
				mine = append(mine, sent{text, err == nil, fact})
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		time.Sleep(time.Duration(50+rng.IntN(250)) * time.Millisecond)
		s.cmd.Process.Signal(syscall.SIGKILL)
		// The client's transport owns the process and reaps it (a Wait of
		// our own would race with the one it runs when the pipe breaks).
		s.cs.Close()
		close(stop)
		<-finished // the writer has seen its last call fail
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	}
	logs, mem := h.logs(), h.read("MEMORY.md")
	done := 0
	for _, s := range all {
		in := logs
		if s.fact {
			in = mem
		}
		first, _, _ := strings.Cut(s.text, "\n")
		begins, whole := strings.Count(in, first+"\n"), strings.Count(in, s.text)
		if s.fact {
			begins = strings.Count(in, first)
		}
		switch {
		case begins != whole:
			t.Errorf("%q is torn: begun %d times, whole %d", first, begins, whole)
		case whole > 1:
			t.Errorf("%q is there %d times", first, whole)
		case s.done && whole != 1:
			t.Errorf("%q was reported saved but is there %d times", first, whole)
		}
		if s.done {
			done++
		}
	}
	if done == 0 {
		t.Fatal("no write finished before a kill: the test tested nothing")
	}
	t.Logf("%d writes sent, %d reported saved, over %d kills", len(all), done, crashKills(t)/2)
	h.checkLogTitles()
	// The next server and agent log go on where the killed ones stopped.
	s, err := h.startServe("after")
	if err != nil {
		t.Fatal(err)
	}
	defer s.cs.Close()
	// A word no killed server wrote: "after the kills" is "kills" to the
	// index (after and the are stopwords), which every "(via killed)"
	// fact outranks.
	if _, err := s.call(mcpserve.ToolRemember, map[string]any{"text": "after the kills a quokka came", "kind": "note"}); err != nil {
		t.Fatal(err)
	}
	if out, err := s.call(mcpserve.ToolSearch, map[string]any{"query": "quokka"}); err != nil || !strings.Contains(out, "· via after") {
		t.Errorf("search after the kills: %v\n%s", err, out)
	}
}

// startHTTP starts agent mcp serve --http on a free loopback port and
// returns the endpoint and what it said on stderr before serving.
func (h *harness) startHTTP(extraEnv ...string) (*exec.Cmd, string, string) {
	h.t.Helper()
	cmd := exec.Command(h.bin, "mcp", "serve", "--http", "127.0.0.1:0")
	cmd.Env, cmd.Dir = append(append([]string(nil), h.env...), extraEnv...), h.dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var said strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(said.String(), "serving MCP at ") || !strings.HasSuffix(said.String(), "\n") {
		n, err := stderr.Read(buf)
		if err != nil {
			h.t.Fatalf("agent mcp serve --http: %v; it said: %s", err, said.String())
		}
		said.Write(buf[:n])
	}
	_, url, _ := strings.Cut(said.String(), "serving MCP at ")
	return cmd, strings.TrimSpace(url), said.String()
}

// --http: the token is made once and shown once, kept 0600; the Go SDK's
// client with it gets in, without it does not; AGENT_MCP_TOKEN replaces it.
func TestMCPServeHTTPToken(t *testing.T) {
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "-q", "log", "the blue kayak is in the garage")
	cmd, url, said := h.startHTTP()
	_, tok, ok := strings.Cut(said, "token for HTTP clients (shown once; kept in .mcp-serve.token): ")
	tok, _, _ = strings.Cut(tok, "\n")
	if !ok || len(tok) != 64 || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("first start said:\n%s", said)
	}
	if kept := strings.TrimSpace(h.read(".mcp-serve.token")); kept != tok {
		t.Errorf("kept token %q, shown %q", kept, tok)
	}
	connect := func(url, token string) (*sdk.ClientSession, error) {
		hc := &http.Client{Transport: bearer{token}}
		return sdk.NewClient(&sdk.Implementation{Name: "codex", Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	}
	if _, err := connect(url, ""); err == nil {
		t.Error("a client without the token got in")
	}
	cs, err := connect(url, tok)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcpserve.ToolSearch, Arguments: map[string]any{"query": "kayak"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "the blue kayak is in the garage") {
		t.Errorf("search over HTTP: %v %+v", err, res)
	}
	cs.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
	// Shown once: the next start names the file, not the token.
	_, url, said = h.startHTTP()
	if strings.Contains(said, tok) || !strings.Contains(said, "HTTP clients give the token kept in .mcp-serve.token") {
		t.Errorf("second start said:\n%s", said)
	}
	if cs, err := connect(url, tok); err != nil {
		t.Errorf("the kept token: %v", err)
	} else {
		cs.Close()
	}
	envTok := strings.Repeat("e", 32)
	_, url, said = h.startHTTP(mcpserve.TokenEnv + "=" + envTok)
	if strings.Contains(said, "token") {
		t.Errorf("with %s it said:\n%s", mcpserve.TokenEnv, said)
	}
	if _, err := connect(url, tok); err == nil {
		t.Error("the file's token got in while the environment's is the one")
	}
	if cs, err := connect(url, envTok); err != nil {
		t.Errorf("the environment's token: %v", err)
	} else {
		cs.Close()
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Started by hand on a terminal, it says what it is for and how to end it
// (on stderr: stdout is the protocol's); Ctrl-D ends it cleanly.
func TestMCPServeOnATerminal(t *testing.T) {
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	p := h.startPTY(nil, "mcp", "serve")
	// Wrapped at spaces to the terminal's 120 columns.
	p.expect(strings.ReplaceAll(`agent: serving MCP on standard input and output, for a client that starts this command \(docs/cli-mcp-serve\.md\); Ctrl-D ends`, " ", `\s+`))
	p.send(keyCtrlD)
	if err := p.wait(); err != nil {
		t.Errorf("Ctrl-D: %v\n%s", err, p.all())
	}
}
