package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
	"agent/profile"
	"agent/prompts"
)

// chatFixture is a real workspace (real SQLite, real files, real index) and a
// chat talking to the fake Ollama over HTTP.
type chatFixture struct {
	t    *testing.T
	home string
	ws   *Workspace
	srv  *ollamatest.Server
	chat *Chat
	mem  *IndexRecall
	now  time.Time
}

func newChatFixture(t *testing.T, names bool) *chatFixture {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	ws, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	f := &chatFixture{t: t, home: home, ws: ws, srv: srv, now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	if names {
		ps := profile.NewStore(ws.State, time.Now)
		for k, v := range map[string]string{"agent.name": "Atlas", "user.name": "Igor", "user.timezone": "UTC"} {
			if _, err := ps.Set(ctx, profile.ByUser("test"), k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.reopen()
	return f
}

// reopen builds a fresh Chat on the same workspace, as a new process would.
func (f *chatFixture) reopen() {
	f.t.Helper()
	if f.mem != nil {
		f.mem.Close()
	}
	mem, err := OpenIndexRecall(context.Background(), f.home, func(string) {})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { mem.Close() })
	o, err := NewOllama(nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.mem = mem
	f.chat = NewChat(f.ws, o, "llama3.2", mem)
	f.chat.Now = func() time.Time { return f.now }
}

func (f *chatFixture) session(name string) *Session {
	f.t.Helper()
	s, err := f.chat.Sessions.Named(context.Background(), name, f.chat.ModelName)
	if err != nil {
		f.t.Fatal(err)
	}
	return &s
}

func (f *chatFixture) write(rel, body string) {
	f.t.Helper()
	p := filepath.Join(f.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *chatFixture) messages(s *Session) []StoredMessage {
	f.t.Helper()
	msgs, err := f.chat.Sessions.Messages(context.Background(), *s)
	if err != nil {
		f.t.Fatal(err)
	}
	return msgs
}

func TestTurnSendsLayersInOrderWithOptions(t *testing.T) {
	f := newChatFixture(t, true)
	f.write("logs/2026-11-20.md", "# 2026-11-20\n\n## Trip planning\n\nFlights to Lisbon booked for the fourth of December.\n")
	f.srv.Script(ollamatest.Text("Lisbon, on the fourth."))
	s := f.session("work")
	var streamed strings.Builder
	res, err := f.chat.Turn(context.Background(), s, "when do I fly to Lisbon?", func(tok string) { streamed.WriteString(tok) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Reply != "Lisbon, on the fourth." || streamed.String() != res.Reply {
		t.Fatalf("reply %q streamed %q", res.Reply, streamed.String())
	}
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	if req.Model != "llama3.2:latest" {
		t.Errorf("model %q", req.Model)
	}
	if req.Options["num_ctx"] != float64(DefaultNumCtx) || req.KeepAlive == nil || req.KeepAlive.Duration != DefaultKeepAlive {
		t.Errorf("options %v keep_alive %v", req.Options, req.KeepAlive)
	}
	m := req.Messages
	if len(m) != 4 {
		t.Fatalf("%d messages: %+v", len(m), m)
	}
	checks := []struct{ role, has string }{
		{"system", prompts.System().Text[:60]},
		{"system", "# Your persona (SOUL.md)"},
		{"system", "Atlas"},
		{"user", `<memory source="logs/2026-11-20.md:3-5 › Trip planning" date="2026-11-20">`},
	}
	for i, c := range checks {
		if m[i].Role != c.role || !strings.Contains(m[i].Content, c.has) {
			t.Errorf("message %d = %s %q…, want %s containing %q", i, m[i].Role, clipTest(m[i].Content), c.role, c.has)
		}
	}
	// The time and the recall at the top of the user's message, then the
	// user's own words after the last fence.
	if !strings.HasPrefix(m[3].Content, "[sent Sun 22 Nov 2026 09:30]\n\n"+openingMark) || !strings.Contains(m[3].Content, "\n\n"+recallHeader) || !strings.HasSuffix(m[3].Content, "</memory>\n\nwhen do I fly to Lisbon?") {
		t.Errorf("user message %q", m[3].Content)
	}
	if !strings.Contains(m[0].Content, "You are Atlas, the personal assistant of Igor") {
		t.Error("runtime section missing from the system message")
	}
	if len(req.Tools) != 10 {
		t.Errorf("%d tools offered, want 10", len(req.Tools))
	}
	// Stored: the user's message (its words and its context apart), then
	// the reply; logged to today's log.
	stored := f.messages(s)
	if len(stored) != 2 || stored[0].Role != "user" || stored[1].Content != res.Reply || stored[1].PromptEvalCount == 0 {
		t.Fatalf("stored %+v", stored)
	}
	if stored[0].Content != "when do I fly to Lisbon?" || withContext(stored[0].Context, stored[0].Content) != m[3].Content {
		t.Errorf("stored words %q, context %q: not the message sent", stored[0].Content, stored[0].Context)
	}
	log, err := os.ReadFile(filepath.Join(f.home, "logs/2026-11-22.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "### 09:30 · session work") || !strings.Contains(string(log), "**Atlas:** Lisbon, on the fourth.") {
		t.Errorf("turn not logged:\n%s", log)
	}
}

func TestHistoryAcrossRestartsAndNoLog(t *testing.T) {
	f := newChatFixture(t, true)
	f.srv.Script(ollamatest.Text("Hello Igor."), ollamatest.Text("You said hello."))
	s := f.session("s1")
	if _, err := f.chat.Turn(context.Background(), s, "hello, remember the blue door", nil); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	f.chat.NoLog = true
	s2, err := f.chat.Sessions.Latest(context.Background())
	if err != nil || s2.Name != "s1" {
		t.Fatalf("latest = %v, %v", s2.Name, err)
	}
	if _, err := f.chat.Turn(context.Background(), &s2, "did I mention the blue door?", nil); err != nil {
		t.Fatal(err)
	}
	req := f.srv.Requests()[1]
	var roles []string
	for _, m := range req.Messages[3:] {
		words := m.Content
		if i := strings.LastIndex(m.Content, "\n\n"); m.Role == "user" && i >= 0 {
			words = m.Content[i+2:] // after the time note and the opening
		}
		roles = append(roles, m.Role+":"+clipTest(words))
	}
	joined := strings.Join(roles, " | ")
	if joined != "user:hello, remember the blue door | assistant:Hello Igor. | user:did I mention the blue door?" {
		t.Errorf("history not carried over: %s", joined)
	}
	// The first turn's log entry is not recalled: it is already in the window.
	for _, m := range req.Messages {
		if strings.Contains(m.Content, recallHeader) && strings.Contains(m.Content, "blue door") {
			t.Errorf("history duplicated in recall:\n%s", m.Content)
		}
	}
	log, _ := os.ReadFile(filepath.Join(f.home, "logs/2026-11-22.md"))
	if strings.Contains(string(log), "did I mention") {
		t.Error("--no-log turn was logged")
	}
}

func TestUserMessageStoredWhenModelFails(t *testing.T) {
	cases := []struct {
		name   string
		reply  ollamatest.Reply
		status string
	}{
		{"http 500", ollamatest.HTTPError(500, "boom"), StatusError},
		{"cut stream", ollamatest.Cut("half a rep"), StatusError},
		{"malformed", ollamatest.Malformed("half"), StatusError},
		{"stall", ollamatest.Stall("slow"), StatusError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newChatFixture(t, true)
			f.srv.Script(c.reply)
			// Only the stall case waits for it: the fake sends a reply's
			// text in one piece, so the short timeout trips only in the
			// silence scripted after it, however busy the machine.
			f.chat.Model.(*Ollama).StallTimeout = 100 * time.Millisecond
			s := f.session("x")
			res, err := f.chat.Turn(context.Background(), s, "are you there?", nil)
			if !errors.Is(err, ErrModelUnavailable) {
				t.Fatalf("err = %v", err)
			}
			if res == nil || !res.Interrupted {
				t.Fatalf("result %+v", res)
			}
			stored := f.messages(s)
			if len(stored) != 2 || stored[0].Content != "are you there?" || stored[1].Status != c.status {
				t.Fatalf("stored %+v", stored)
			}
			if c.reply.Text != "" && stored[1].Content != c.reply.Text {
				t.Errorf("partial reply %q, want %q", stored[1].Content, c.reply.Text)
			}
		})
	}
}

func TestCancelMarksReplyInterrupted(t *testing.T) {
	f := newChatFixture(t, true)
	f.srv.Script(ollamatest.Stall("I was saying"))
	f.chat.Model.(*Ollama).StallTimeout = time.Minute
	s := f.session("x")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := f.chat.Turn(ctx, s, "tell me a story", func(string) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	stored := f.messages(s)
	if len(stored) != 2 || stored[1].Status != StatusInterrupted || !strings.HasPrefix(stored[1].Content, "I") {
		t.Fatalf("stored %+v", stored)
	}
}

func TestToolsRunAndReportBack(t *testing.T) {
	f := newChatFixture(t, true)
	f.write("MEMORY.md", "# Memory\n\n## User Facts\n\n- My sister Ana lives in Porto.\n")
	f.srv.Script(
		ollamatest.CallTool(ToolMemorySearch, map[string]any{"query": "sister", "k": "3"}),
		ollamatest.CallTool(ToolMemoryAppend, map[string]any{"text": "Igor prefers tea.", "section": "Preferences"}),
		ollamatest.CallTool(ToolProfilePropose, map[string]any{"key": "user.location", "value": "Porto", "reason": "mentioned"}),
		ollamatest.CallTool(ToolLogNote, map[string]any{"text": "talked about family"}),
		ollamatest.Text("Done."),
	)
	var notes []string
	f.chat.Notify = func(s string) { notes = append(notes, s) }
	s := f.session("tools")
	res, err := f.chat.Turn(context.Background(), s, "who is my sister?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reply != "Done." || len(res.ToolCalls) != 4 {
		t.Fatalf("reply %q, %d tool calls", res.Reply, len(res.ToolCalls))
	}
	for _, tc := range res.ToolCalls {
		if !tc.OK {
			t.Errorf("%s failed: %s", tc.Name, tc.Result)
		}
	}
	if !strings.Contains(res.ToolCalls[0].Result, "Ana lives in Porto") || !strings.Contains(res.ToolCalls[0].Result, "MEMORY.md:3-5 › Memory › User Facts") {
		t.Errorf("search result %q", res.ToolCalls[0].Result)
	}
	mem, _ := os.ReadFile(filepath.Join(f.home, "MEMORY.md"))
	if !strings.Contains(string(mem), "## Preferences\n\n- Igor prefers tea.") {
		t.Errorf("fact not appended:\n%s", mem)
	}
	// The proposal is recorded, not applied.
	ps := profile.NewStore(f.ws.State, time.Now)
	if _, ok, _ := ps.Get(context.Background(), "user.location"); ok {
		t.Error("the model changed a profile record")
	}
	props, _ := ps.Proposals(context.Background(), "pending")
	if len(props) != 1 || props[0].Value != "Porto" {
		t.Errorf("proposals %+v", props)
	}
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "agent profile accept") {
		t.Errorf("user not told how to accept: %v", notes)
	}
	// Each tool result went back to the model in the next request.
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if last[len(last)-1].Role != "tool" || last[len(last)-1].ToolName != ToolLogNote {
		t.Errorf("last message %+v", last[len(last)-1])
	}
}

func TestToolErrorsAreResultsNotCrashes(t *testing.T) {
	f := newChatFixture(t, true)
	f.srv.Script(
		ollamatest.CallTool(ToolMemoryAppend, map[string]any{"text": 42}),
		ollamatest.CallTool("rm_rf", map[string]any{"path": "/"}),
		ollamatest.CallTool(ToolSoulUpdate, map[string]any{"content": strings.Repeat("x", 17<<10), "reason": "grow"}),
		ollamatest.CallTool(ToolProfileBootstrap, map[string]any{"agent_name": "Evil", "user_name": "X"}),
		ollamatest.Text("ok"),
	)
	res, err := f.chat.Turn(context.Background(), f.session("bad"), "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range res.ToolCalls {
		if tc.OK || !strings.HasPrefix(tc.Result, "error: ") {
			t.Errorf("%s should have failed: %+v", tc.Name, tc)
		}
	}
	doc, _ := f.chat.Soul.Load(context.Background())
	if strings.Contains(doc.Content, "xxxx") {
		t.Error("oversized soul_update was saved")
	}
}

func TestToolRoundsAreBounded(t *testing.T) {
	f := newChatFixture(t, true)
	f.srv.Default(ollamatest.CallTool(ToolLogNote, map[string]any{"text": "again"}))
	res, err := f.chat.Turn(context.Background(), f.session("loop"), "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	// maxToolRounds rounds with tools, one without, and one more without
	// asking for words, since the model answered the last with a tool call.
	if len(reqs) != maxToolRounds+2 || len(reqs[maxToolRounds].Tools) != 0 || len(reqs[maxToolRounds+1].Tools) != 0 {
		t.Fatalf("%d requests; last offered %d tools", len(reqs), len(reqs[len(reqs)-1].Tools))
	}
	if len(res.ToolCalls) != maxToolRounds {
		t.Errorf("%d tool calls run", len(res.ToolCalls))
	}
	// Nothing is dropped silently: each unrun call and the missing answer
	// are said, on stderr (Notify) and in the result.
	want := []string{
		"the model asked for 1 tool call(s) after its last allowed round (log_note); they were not run",
		"the model asked for 1 tool call(s) after its last allowed round (log_note); they were not run",
		"the model gave no answer in words",
	}
	if !slices.Equal(res.Notices, want) {
		t.Errorf("notices %q", res.Notices)
	}
}

// A model that answers the tool-less round with a tool call and then, asked
// plainly, in words: that answer is the reply.
func TestLastRoundToolCallGetsAnAnswerInWords(t *testing.T) {
	f := newChatFixture(t, true)
	call := ollamatest.CallTool(ToolLogNote, map[string]any{"text": "again"})
	var script []ollamatest.Reply
	for i := 0; i <= maxToolRounds; i++ {
		script = append(script, call)
	}
	f.srv.Script(append(script, ollamatest.Text("Here is my answer."))...)
	res, err := f.chat.Turn(context.Background(), f.session("words"), "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reply != "Here is my answer." || len(res.Notices) != 1 {
		t.Fatalf("reply %q, notices %q", res.Reply, res.Notices)
	}
	last := f.srv.Requests()[maxToolRounds+1]
	if m := last.Messages[len(last.Messages)-1]; m.Role != "user" || !strings.Contains(m.Content, "Answer the user now, in words") {
		t.Errorf("the extra round did not ask for words: %+v", m)
	}
}

func TestBootstrapModeAndConfirmation(t *testing.T) {
	f := newChatFixture(t, false)
	f.srv.Script(
		ollamatest.CallTool(ToolProfileBootstrap, map[string]any{"agent_name": "Atlas", "user_name": "Igor"}),
		ollamatest.Text("Nice to meet you."),
		ollamatest.CallTool(ToolProfileBootstrap, map[string]any{"agent_name": "Atlas", "user_name": "Igor"}),
		ollamatest.Text("Saved."),
	)
	s := f.session("hello")
	// No terminal: refused, nothing saved.
	res, err := f.chat.Turn(context.Background(), s, "call me Igor, and you are Atlas", nil)
	if err != nil {
		t.Fatal(err)
	}
	req := f.srv.Requests()[0]
	if !strings.HasPrefix(req.Messages[0].Content, prompts.Bootstrap().Text[:40]) {
		t.Error("bootstrap prompt not used with an empty profile")
	}
	if len(req.Tools) != 4 || req.Tools[0].Function.Name != ToolProfileBootstrap {
		t.Errorf("bootstrap tools %+v", req.Tools)
	}
	if res.ToolCalls[0].OK || !strings.Contains(res.ToolCalls[0].Result, "not at a terminal") {
		t.Errorf("bootstrap without a terminal: %+v", res.ToolCalls[0])
	}
	ps := profile.NewStore(f.ws.State, time.Now)
	if _, ok, _ := ps.Get(context.Background(), "agent.name"); ok {
		t.Fatal("names saved without confirmation")
	}
	// With a terminal and a yes: saved, recorded as the user's confirmed direction.
	asked := ""
	f.chat.Confirm = func(q string) bool { asked = q; return true }
	if _, err := f.chat.Turn(context.Background(), s, "yes please", nil); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := ps.Get(context.Background(), "agent.name"); v != "Atlas" || asked == "" {
		t.Fatalf("agent.name = %q, asked %q", v, asked)
	}
	hist, _ := ps.History(context.Background())
	if len(hist) != 2 || hist[0].Command != "chat bootstrap (confirmed)" {
		t.Errorf("history %+v", hist)
	}
}

// Ollama silently drops the front of a prompt longer than num_ctx. The
// budget must cut history instead, so the fixed prompt always arrives.
func TestLongHistoryNeverOverflowsNumCtx(t *testing.T) {
	f := newChatFixture(t, true)
	// 4096, not 2048: the fixed layers and the tool list alone are ~2,400
	// tokens and grow with each tool; 12 turns of ~500 tokens still
	// overflow it.
	f.chat.NumCtx = 4096
	f.srv.Default(ollamatest.Text(strings.Repeat("long answer ", 80)))
	s := f.session("long")
	for i := 0; i < 12; i++ {
		if _, err := f.chat.Turn(context.Background(), s, strings.Repeat("question ", 60), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i, req := range f.srv.Requests() {
		if got := ollamatest.PromptTokens(req); got > f.chat.NumCtx-f.chat.reserve() {
			t.Errorf("request %d: ~%d prompt tokens > budget %d", i, got, f.chat.NumCtx-f.chat.reserve())
		}
		if !strings.HasPrefix(req.Messages[0].Content, prompts.System().Text[:100]) {
			t.Errorf("request %d lost the fixed prompt", i)
		}
	}
	res, err := f.chat.Turn(context.Background(), s, "last", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cuts) == 0 {
		t.Error("history cut not reported")
	}
}

func clipTest(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// In the REPL the files are watched instead of walked before each turn. The
// index must still never be stale: the turn the chat itself logged, and an
// edit made between turns by another program, are both recalled next turn.
func TestWatchedRecallIsNeverStale(t *testing.T) {
	f := newChatFixture(t, true)
	if err := f.mem.WatchFiles(f.home); err != nil {
		t.Fatal(err)
	}
	f.srv.Default(ollamatest.Text("noted"))
	ctx := context.Background()
	if _, err := f.chat.Turn(ctx, f.session("repl"), "the heron on the quay is named Bartholomew", nil); err != nil {
		t.Fatal(err)
	}
	f.mem.mu.Lock() // wait for the background refresh after the logged turn
	f.mem.mu.Unlock()
	// Another program writes between turns; only the monitor can know.
	f.write("logs/2026-11-01.md", "# 2026-11-01\n\n## Garden\n\nPlanted saffron crocus bulbs by the fence.\n")
	if _, err := f.chat.Turn(ctx, f.session("other"), "saffron or Bartholomew?", nil); err != nil {
		t.Fatal(err)
	}
	mem := f.srv.Requests()[1].Messages[3].Content
	if !strings.Contains(mem, "saffron crocus") {
		t.Errorf("an edit between turns was not recalled:\n%s", mem)
	}
	if !strings.Contains(mem, "named Bartholomew") {
		t.Errorf("the logged turn was not recalled:\n%s", mem)
	}
}
