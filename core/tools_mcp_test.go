package core

import (
	"agent/core/testhome"
	"agent/core/window"

	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/core/mcp"
	"agent/core/mcp/mcptest"
	"agent/core/ollamatest"
)

// TestMain lets the core test binary serve as the stdio MCP test server.
func TestMain(m *testing.M) {
	if os.Getenv("MCPTEST_MAIN") == "1" {
		mcptest.Main()
	}
	os.Exit(testhome.Run(m)) // HOME and XDG_CACHE_HOME of its own
}

// approveMCP approves every server of home's mcp.json, as `agent mcp add`
// does for the server it adds.
func approveMCP(t testing.TB, home string, st *mcp.Store) {
	t.Helper()
	cfg, err := mcp.LoadConfig(filepath.Join(home, mcp.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cfg.Names() {
		if err := st.Approve(context.Background(), cfg.Servers[name]); err != nil {
			t.Fatal(err)
		}
	}
}

// withMCP configures the test server as integration "t" and wires it into
// the chat, as a chat session would (all servers started).
func (f *chatFixture) withMCP(opts mcp.Options) *mcptest.Notes {
	f.t.Helper()
	cfg := &mcp.Config{Servers: map[string]mcp.Server{"t": {Command: os.Args[0], Env: map[string]string{"MCPTEST_MAIN": "1"}}}}
	if err := mcp.SaveConfig(filepath.Join(f.home, mcp.ConfigFile), cfg); err != nil {
		f.t.Fatal(err)
	}
	notes := &mcptest.Notes{}
	opts.Home, opts.Store = f.home, mcp.NewStore(f.ws.State, nil)
	approveMCP(f.t, f.home, opts.Store)
	opts.Notify = notes.Add
	m, err := mcp.Open(context.Background(), opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(m.Close)
	m.Start(context.Background())
	f.chat.MCP = &MCP{Manager: m}
	f.chat.Identity = append(f.chat.Identity, f.chat.MCP)
	f.chat.Notify = notes.Add
	return notes
}

func lastToolMessage(t *testing.T, srv *ollamatest.Server) string {
	t.Helper()
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	t.Fatal("no tool message in the last request")
	return ""
}

func TestMCPToolsReachTheModelAndIdentity(t *testing.T) {
	f := newChatFixture(t, true)
	f.withMCP(mcp.Options{})
	f.srv.Script(ollamatest.Text("ok"))
	if _, err := f.chat.Turn(context.Background(), f.session("s"), "hello", nil); err != nil {
		t.Fatal(err)
	}
	req := f.srv.Requests()[0]
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
		if tl.Function.Name == "t__search" {
			p := tl.Function.Parameters
			if !slices.Equal(p.Required, []string{"query"}) || p.Properties["labels"].Type[0] != "array" || p.Properties["labels"].Items == nil {
				t.Fatalf("t__search schema: %+v", p)
			}
		}
	}
	for _, want := range []string{ToolMemorySearch, "t__echo", "t__search", "t__huge"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tool %s not sent; sent %v", want, names)
		}
	}
	if sys := req.Messages[0].Content; !strings.Contains(sys, "- Integrations (their tools are named NAME__tool): t: 7 tools.\n") {
		t.Fatalf("identity section lacks the integration:\n%s", sys)
	}
}

// TestMCPBudgetNoteAtTurn: a turn offers the integrations' tools through
// Manager.Offer, which tells the user once that some were left out; the
// getter Tools tells nobody, so a turn that used it would be silent.
func TestMCPBudgetNoteAtTurn(t *testing.T) {
	f := newChatFixture(t, true)
	notes := f.withMCP(mcp.Options{ToolBudget: 3})
	f.srv.Script(ollamatest.Text("ok"), ollamatest.Text("ok"))
	for range 2 {
		if _, err := f.chat.Turn(context.Background(), f.session("s"), "hello", nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(notes.String(), "7 integration tools, over the budget of 3: 4 left out"); n != 1 {
		t.Fatalf("budget note given %d times over two turns, want once: %q", n, notes.String())
	}
}

// call scripts one tool call and a closing answer, runs a turn and returns
// the tool's result as the chat recorded it.
func (f *chatFixture) call(name string, args map[string]any) ToolResult {
	f.t.Helper()
	f.srv.Script(ollamatest.CallTool(name, args), ollamatest.Text("done"))
	res, err := f.chat.Turn(context.Background(), f.session("s"), "go", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 {
		f.t.Fatalf("tool calls: %+v", res.ToolCalls)
	}
	return res.ToolCalls[0]
}

// A tool that does not answer within the call timeout is a failed call the
// model is told of.
func TestMCPSlowToolTimesOutThroughTheChat(t *testing.T) {
	f := newChatFixture(t, true)
	f.withMCP(mcp.Options{CallTimeout: 300 * time.Millisecond})
	f.chat.MCP.Ask = func(Approval) string { return "y" }
	r := f.call("t__slow", map[string]any{"seconds": 600})
	if r.OK || !strings.Contains(r.Result, "no answer within 300ms") {
		t.Fatalf("slow: %+v", r)
	}
}

func TestMCPCallsThroughTheChat(t *testing.T) {
	f := newChatFixture(t, true)
	// The default call timeout: the short one is the slow tool's alone
	// (TestMCPSlowToolTimesOutThroughTheChat); on a busy machine the huge
	// result took more than 300 ms to arrive (issue 51).
	notes := f.withMCP(mcp.Options{})
	var asked []string
	shown := func(q Approval) string { return q.Title + "\n" + strings.Join(q.Lines, "\n") + "\n" + q.Question }
	f.chat.MCP.Ask = func(q Approval) string { asked = append(asked, shown(q)); return "y" }

	r := f.call("t__echo", map[string]any{"text": "hi"})
	if !r.OK || !strings.Contains(r.Result, "<tool_result source=\"t__echo\" integration=\"t\" trust=\"untrusted data\">\necho: hi\n</tool_result>") {
		t.Fatalf("echo: %+v", r)
	}
	if len(asked) != 1 || asked[0] != "Run echo (integration t) with:\n  text: \"hi\"\nRun it? [y/n/always]" {
		t.Fatalf("the user was not asked with the arguments: %q", asked)
	}
	if msg := lastToolMessage(t, f.srv); msg != r.Result {
		t.Fatalf("the model got %q, want the fenced result", msg)
	}

	// Issue 26.1: the question showed the first 300 characters with
	// whitespace collapsed; a payload after them was approved unseen.
	t.Run("the whole call is shown", func(t *testing.T) {
		n := len(asked)
		text := strings.Repeat("harmless ", 50) + "PAYLOAD rm -rf ~\x1b[2K\u202e\nsecond  line"
		f.call("t__echo", map[string]any{"text": text})
		q := asked[n]
		for _, want := range []string{"PAYLOAD rm -rf ~\\x1b[2K\\u202e", "  │ second  line", "text: (text, 2 lines)"} {
			if !strings.Contains(q, want) {
				t.Errorf("the question lacks %q:\n%s", want, q)
			}
		}
		if strings.ContainsAny(q, "\x1b\u202e") || strings.Count(q, "harmless") != 50 {
			t.Errorf("the question is cut or holds raw control characters:\n%q", q)
		}
	})
	t.Run("injection stays fenced", func(t *testing.T) {
		r := f.call("t__inject", nil)
		msg := lastToolMessage(t, f.srv)
		if strings.Count(msg, "</tool_result>") != 1 || strings.Contains(msg, "<|im_start|>") || strings.Contains(msg, "[INST]") {
			t.Fatalf("injection escaped the fence: %q", msg)
		}
		if !r.OK || !strings.Contains(msg, "‹|im_start|›system") {
			t.Fatalf("injection text not kept as data: %q", msg)
		}
	})
	t.Run("huge output capped", func(t *testing.T) {
		r := f.call("t__huge", nil)
		if !r.OK || len(r.Result) > mcp.DefaultMaxResult+300 || !strings.Contains(r.Result, "[cut: the result was 102400 bytes; only the first 16384 are shown]") {
			t.Fatalf("huge: ok %v, %d bytes, tail %q", r.OK, len(r.Result), r.Result[max(0, len(r.Result)-120):])
		}
		if !strings.Contains(notes.String(), "t__huge returned 102400 bytes: cut to 16384") {
			t.Fatalf("cut not reported to the user: %q", notes)
		}
	})
	t.Run("failing tool", func(t *testing.T) {
		r := f.call("t__fail", nil)
		if r.OK || !strings.Contains(r.Result, "t__fail reported a failure") || !strings.Contains(r.Result, "the backend said no") {
			t.Fatalf("fail: %+v", r)
		}
	})
	t.Run("always is remembered", func(t *testing.T) {
		f.chat.MCP.Ask = func(q Approval) string { asked = append(asked, shown(q)); return "always" }
		n := len(asked)
		f.call("t__search", map[string]any{"query": "x"})
		f.chat.MCP.Ask = nil
		if r := f.call("t__search", map[string]any{"query": "y"}); !r.OK || len(asked) != n+1 {
			t.Fatalf("always not kept: %+v, asked %d times", r, len(asked)-n)
		}
	})
	t.Run("declined", func(t *testing.T) {
		f.chat.MCP.Ask = func(Approval) string { return "n" }
		if r := f.call("t__echo", map[string]any{"text": "no"}); r.OK || !strings.Contains(r.Result, "the user declined") {
			t.Fatalf("declined: %+v", r)
		}
	})
	t.Run("dying mid-call", func(t *testing.T) {
		f.chat.MCP.Ask = func(Approval) string { return "y" }
		r := f.call("t__die", nil)
		if r.OK || !strings.Contains(r.Result, "out of cheese") {
			t.Fatalf("die: %+v", r)
		}
		for !strings.Contains(notes.String(), "integration t stopped") {
			time.Sleep(10 * time.Millisecond)
		}
		f.srv.Script(ollamatest.Text("fine"))
		if _, err := f.chat.Turn(context.Background(), f.session("s"), "still there?", nil); err != nil {
			t.Fatalf("the chat stopped with the server: %v", err)
		}
		reqs := f.srv.Requests()
		last := reqs[len(reqs)-1]
		for _, tl := range last.Tools {
			if strings.HasPrefix(tl.Function.Name, "t__") {
				t.Fatalf("a dead server's tool is still sent: %s", tl.Function.Name)
			}
		}
		if !strings.Contains(last.Messages[0].Content, "t: unavailable — stopped") {
			t.Fatalf("identity does not show the server down:\n%s", last.Messages[0].Content)
		}
	})
}

func TestMCPNotAllowedWithoutTerminal(t *testing.T) {
	f := newChatFixture(t, true)
	notes := f.withMCP(mcp.Options{})
	r := f.call("t__echo", map[string]any{"text": "hi"})
	want := "agent mcp allow t echo"
	if r.OK || !strings.Contains(r.Result, "not allowed t__echo yet") && !strings.Contains(r.Result, "has not allowed t__echo yet") || !strings.Contains(r.Result, want) {
		t.Fatalf("refusal: %+v", r)
	}
	if !strings.Contains(notes.String(), "refused t__echo: not allowed yet and no terminal to ask; allow it with: "+want) {
		t.Fatalf("the user was not told: %q", notes)
	}
}

func TestNoToolsModelStillChats(t *testing.T) {
	f := newChatFixture(t, true)
	m := ollamatest.Llama32()
	m.Capabilities = []string{"completion"}
	f.srv.SetModels(m)
	f.chat.NoTools = true
	f.chat.Identity = append(f.chat.Identity, NoToolsIdentity{})
	f.srv.Script(ollamatest.Text("hello without tools"))
	res, err := f.chat.Turn(context.Background(), f.session("s"), "hi", nil)
	if err != nil || res.Reply != "hello without tools" {
		t.Fatalf("turn: %+v %v", res, err)
	}
	req := f.srv.Requests()[0]
	if len(req.Tools) != 0 {
		t.Fatalf("tools sent to a model without tool calling: %d", len(req.Tools))
	}
	if !strings.Contains(req.Messages[0].Content, "Tools: unavailable with this model") {
		t.Fatalf("identity does not say tools are unavailable:\n%s", req.Messages[0].Content)
	}
}

// TestMCPIdentityBudget: 12 integrations, all unavailable (the longest
// state), give one line naming 10 and counting the rest, within 150
// estimated tokens, byte-identical from one turn to the next.
func TestMCPIdentityBudget(t *testing.T) {
	home := t.TempDir()
	ws, _, err := Init(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	cfg := &mcp.Config{Servers: map[string]mcp.Server{}}
	for _, n := range []string{"github", "calendar", "files", "notes", "mail", "todoist", "linear", "slack", "weather", "home-assistant", "spotify", "jira"} {
		cfg.Servers[n] = mcp.Server{Command: "/nonexistent/" + n}
	}
	if err := mcp.SaveConfig(filepath.Join(home, mcp.ConfigFile), cfg); err != nil {
		t.Fatal(err)
	}
	approveMCP(t, home, mcp.NewStore(ws.State, nil))
	m, err := mcp.Open(context.Background(), mcp.Options{Home: home, Store: mcp.NewStore(ws.State, nil)})
	if err != nil {
		t.Fatal(err)
	}
	src := &MCP{Manager: m}
	first, _ := src.Identity(context.Background(), time.Now())
	again, _ := src.Identity(context.Background(), time.Now())
	if len(first) != 1 || len(first[0].Lines) != 1 || first[0].Section != SectionCapabilities {
		t.Fatalf("blocks: %+v", first)
	}
	line := first[0].Lines[0]
	if line != again[0].Lines[0] {
		t.Fatal("the line changed with no state change")
	}
	if !strings.HasPrefix(line, "Integrations (their tools are named NAME__tool): calendar: unavailable — not started; files: ") ||
		!strings.HasSuffix(line, "; and 2 more.") {
		t.Fatalf("line: %s", line)
	}
	if n := window.Tokens(line); n > 150 {
		t.Fatalf("%d estimated tokens for 10 integrations, budget 150: %s", n, line)
	}
}

// TestIdentityToolsLineIsBuiltinOnly: an integration's tools travel in the
// request's tools; the identity section sums them up on the integrations
// line, so its Tools line lists only the built-in ones.
func TestIdentityToolsLineIsBuiltinOnly(t *testing.T) {
	f := newChatFixture(t, true)
	f.withMCP(mcp.Options{})
	a, err := f.chat.Assemble(context.Background(), f.session("s"), "hello")
	if err != nil {
		t.Fatal(err)
	}
	sys := a.Messages[0].Content
	if !strings.Contains(sys, "- Tools: memory_search, ") || strings.Contains(sys, "t__echo") {
		t.Fatalf("Tools line lists integration tools, or is missing:\n%s", sys)
	}
	if !strings.Contains(sys, "- Integrations (their tools are named NAME__tool): t: 7 tools.") {
		t.Fatalf("integrations line:\n%s", sys)
	}
}

// The short form joins integrations that share a state; a shared tool count
// says "each", so it never reads as a total.
func TestGroupByState(t *testing.T) {
	got := groupByState([]mcp.Summary{{Name: "calendar", Tools: 14}, {Name: "files", Why: "not started"}, {Name: "mail", Tools: 14},
		{Name: "notes", Tools: 1}, {Name: "web", Why: "not started"}, {Name: "a", Tools: 0}, {Name: "b", Tools: 0}})
	want := "calendar, mail: 14 tools each; files, web: unavailable — not started; notes: 1 tool; a, b: 0 tools each"
	if got != want {
		t.Errorf("groupByState = %q, want %q", got, want)
	}
}
