package core_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"agent/core"
	"agent/core/ollamatest"
)

// newFakeOllama points an adapter at a fresh fake server.
func newFakeOllama(t *testing.T) (*core.Ollama, *ollamatest.Server) {
	t.Helper()
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	o, err := core.NewOllama(nil)
	if err != nil {
		t.Fatal(err)
	}
	return o, srv
}

func TestOllamaChatStreamsAndSendsEverything(t *testing.T) {
	o, srv := newFakeOllama(t)
	srv.Script(ollamatest.Text("Hello there, friend of mine"))

	req := core.ChatRequest{
		Model: "llama3.2",
		Messages: []core.Message{
			{Role: "system", Content: "fixed prompt"},
			{Role: "system", Content: "# Soul"},
			{Role: "user", Content: "earlier question"},
			{Role: "assistant", Content: "", ToolCalls: []core.ToolCall{{Name: "memory_search", Arguments: map[string]any{"query": "trip"}}}},
			{Role: "tool", ToolName: "memory_search", Content: "no hits"},
			{Role: "user", Content: "hi"},
		},
		Tools: []core.ToolSpec{{
			Name: "memory_append", Description: "remember a fact",
			Parameters: []core.ToolParam{
				{Name: "text", Type: "string", Description: "the fact", Required: true},
				{Name: "section", Type: "string", Description: "where", Enum: []string{"User Facts", "Decisions"}},
			},
		}},
		NumCtx:     4096,
		KeepAlive:  10 * time.Minute,
		NumPredict: 256,
	}
	var tokens []string
	reply, err := o.Chat(context.Background(), req, func(s string) { tokens = append(tokens, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) < 2 || strings.Join(tokens, "") != "Hello there, friend of mine" {
		t.Errorf("tokens = %q, want the reply in several fragments", tokens)
	}
	if reply.Content != "Hello there, friend of mine" || reply.DoneReason != "stop" || reply.EvalCount != len(tokens) {
		t.Errorf("reply = %+v", reply)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if want := ollamatest.PromptTokens(got); reply.PromptEvalCount != want || want == 0 {
		t.Errorf("prompt_eval_count = %d, want %d", reply.PromptEvalCount, want)
	}
	if got.Model != "llama3.2" || got.Stream == nil || !*got.Stream {
		t.Errorf("model %q stream %v: want llama3.2, streaming", got.Model, got.Stream)
	}
	if got.KeepAlive == nil || got.KeepAlive.Duration != 10*time.Minute {
		t.Errorf("keep_alive = %v, want 10m", got.KeepAlive)
	}
	if got.Options["num_ctx"] != float64(4096) || got.Options["num_predict"] != float64(256) {
		t.Errorf("options = %v, want num_ctx 4096 and num_predict 256", got.Options)
	}
	var layering []string
	for _, m := range got.Messages {
		layering = append(layering, m.Role+":"+m.ToolName+":"+m.Content)
	}
	want := []string{"system::fixed prompt", "system::# Soul", "user::earlier question", "assistant::", "tool:memory_search:no hits", "user::hi"}
	if !reflect.DeepEqual(layering, want) {
		t.Errorf("messages = %q\nwant %q", layering, want)
	}
	if tc := got.Messages[3].ToolCalls; len(tc) != 1 || tc[0].Function.Name != "memory_search" || tc[0].Function.Arguments["query"] != "trip" {
		t.Errorf("assistant tool calls = %+v", tc)
	}
	if len(got.Tools) != 1 {
		t.Fatalf("tools = %v", got.Tools)
	}
	fn := got.Tools[0].Function
	if got.Tools[0].Type != "function" || fn.Name != "memory_append" || fn.Parameters.Type != "object" ||
		!reflect.DeepEqual(fn.Parameters.Required, []string{"text"}) {
		t.Errorf("tool = %s", got.Tools[0])
	}
	if p := fn.Parameters.Properties["section"]; p.Type.String() != "string" || !reflect.DeepEqual(p.Enum, []any{"User Facts", "Decisions"}) {
		t.Errorf("section property = %+v", p)
	}
}

func TestOllamaAlwaysSendsNumCtxAndKeepAlive(t *testing.T) {
	o, srv := newFakeOllama(t)
	srv.Script(ollamatest.Text("ok"))
	if _, err := o.Chat(context.Background(), core.ChatRequest{Model: "llama3.2", Messages: []core.Message{{Role: "user", Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Options["num_ctx"] != float64(8192) {
		t.Errorf("num_ctx = %v, want the explicit fallback 8192", got.Options["num_ctx"])
	}
	if _, set := got.Options["num_predict"]; set {
		t.Errorf("num_predict sent although zero: %v", got.Options)
	}
	if got.KeepAlive == nil || got.KeepAlive.Duration != 5*time.Minute {
		t.Errorf("keep_alive = %v, want explicit 5m", got.KeepAlive)
	}
}

func TestOllamaToolCalls(t *testing.T) {
	o, srv := newFakeOllama(t)
	srv.Script(ollamatest.CallTool("memory_search", map[string]any{"query": "trip", "k": 3}))
	reply, err := o.Chat(context.Background(), core.ChatRequest{
		Model: "llama3.2", Messages: []core.Message{{Role: "user", Content: "where did I go?"}},
		Tools: []core.ToolSpec{{Name: "memory_search", Parameters: []core.ToolParam{{Name: "query", Type: "string", Required: true}}}},
	}, func(s string) { t.Errorf("unexpected token %q", s) })
	if err != nil {
		t.Fatal(err)
	}
	want := []core.ToolCall{{Name: "memory_search", Arguments: map[string]any{"query": "trip", "k": float64(3)}}}
	if !reflect.DeepEqual(reply.ToolCalls, want) || reply.Content != "" {
		t.Errorf("reply = %+v, want only the tool call %+v", reply, want)
	}
}

func TestOllamaStreamFailures(t *testing.T) {
	const never = time.Minute // a watchdog that must not fire in this case
	tests := []struct {
		name        string
		reply       ollamatest.Reply
		load, stall time.Duration
		partial     string
		msg         string
	}{
		{"http 500", ollamatest.HTTPError(http.StatusInternalServerError, "llama runner process has terminated"), never, never, "", "llama runner process has terminated"},
		{"error mid-stream", ollamatest.StreamError("The answer", "llama runner process has terminated: exit status 2"), never, never, "The answer", "exit status 2"},
		{"connection cut", ollamatest.Cut("The answer is"), never, never, "The answer is", "was cut off before it finished"},
		{"malformed json", ollamatest.Malformed("The answer is"), never, never, "The answer is", "malformed reply from Ollama"},
		{"stall mid-reply", ollamatest.Stall("The answer"), never, 100 * time.Millisecond, "The answer", "stalled: nothing received for 100ms"},
		{"stall before the first byte", ollamatest.Stall(""), 150 * time.Millisecond, never, "", "stalled: nothing received for 150ms"},
		{"model vanished", ollamatest.HTTPError(http.StatusNotFound, `model "llama3.2" not found, try pulling it first`), never, never, "", "model llama3.2:latest not found: run 'ollama pull llama3.2'"},
	}
	// The short watchdogs cannot trip early on a busy machine: the fake
	// sends the partial reply in one piece before its scripted silence, so
	// the only gap the client sees is that silence.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, srv := newFakeOllama(t)
			o.LoadTimeout, o.StallTimeout = tt.load, tt.stall
			srv.Script(tt.reply)
			var streamed strings.Builder
			reply, err := o.Chat(context.Background(), core.ChatRequest{Model: "llama3.2", Messages: []core.Message{{Role: "user", Content: "q"}}},
				func(s string) { streamed.WriteString(s) })
			if !errors.Is(err, core.ErrModelUnavailable) {
				t.Fatalf("err = %v, want one wrapping ErrModelUnavailable", err)
			}
			t.Logf("message: %v", err)
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), srv.Host()) && !strings.Contains(tt.msg, "not found") {
				t.Errorf("err = %q, want it to name the server and say %q", err, tt.msg)
			}
			if reply.Content != tt.partial || streamed.String() != tt.partial {
				t.Errorf("partial content = %q (streamed %q), want %q", reply.Content, streamed.String(), tt.partial)
			}
		})
	}
}

func TestOllamaCancelKeepsPartialContent(t *testing.T) {
	o, srv := newFakeOllama(t)
	srv.Script(ollamatest.Stall("Once upon a time"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n int
	reply, err := o.Chat(ctx, core.ChatRequest{Model: "llama3.2", Messages: []core.Message{{Role: "user", Content: "story"}}}, func(string) {
		// Ctrl-C once the whole partial reply has arrived.
		if n++; n == len(ollamatest.Chunks("Once upon a time")) {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, core.ErrModelUnavailable) {
		t.Errorf("a cancel is not an unavailable model: %v", err)
	}
	if reply.Content != "Once upon a time" {
		t.Errorf("partial = %q", reply.Content)
	}
}

func TestOllamaUnreachable(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	o, err := core.NewOllama(nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "cannot reach Ollama at http://127.0.0.1:1: is 'ollama serve' running?"
	_, err = o.Chat(context.Background(), core.ChatRequest{Model: "llama3.2", Messages: []core.Message{{Role: "user", Content: "hi"}}}, nil)
	if !errors.Is(err, core.ErrModelUnavailable) || err.Error() != want {
		t.Errorf("Chat: err = %v, want %q", err, want)
	}
	_, err = o.Check(context.Background(), "llama3.2")
	if !errors.Is(err, core.ErrModelUnavailable) || err.Error() != want {
		t.Errorf("Check: err = %v, want %q", err, want)
	}
}

func TestOllamaCheck(t *testing.T) {
	o, srv := newFakeOllama(t)
	srv.SetModels(ollamatest.Llama32(), ollamatest.Model{Name: "tiny", ContextLength: 8192, Family: "llama", Capabilities: []string{"completion"}})

	info, err := o.Check(context.Background(), "llama3.2")
	if err != nil {
		t.Fatal(err)
	}
	want := core.ModelInfo{Name: "llama3.2:latest", ContextLength: 131072, Family: "llama", ParameterSize: "3.2B", Quantization: "Q4_K_M", Capabilities: []string{"completion", "tools"}}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("Check = %+v\nwant %+v", info, want)
	}
	if info, err := o.Show(context.Background(), "tiny:latest"); err != nil || info.ContextLength != 8192 {
		t.Errorf("Show(tiny:latest) = %+v, %v", info, err)
	}

	_, err = o.Check(context.Background(), "mistral")
	if !errors.Is(err, core.ErrModelUnavailable) || err.Error() != "model mistral:latest not found: run 'ollama pull mistral', or use an installed one with --model (installed: llama3.2:latest, tiny:latest)" {
		t.Errorf("missing model: err = %v", err)
	}

	v, err := o.Version(context.Background())
	if err != nil || v != ollamatest.Version {
		t.Errorf("Version = %q, %v", v, err)
	}
}

func TestOllamaToolsUnsupported(t *testing.T) {
	o, srv := newFakeOllama(t)
	srv.SetModels(ollamatest.Model{Name: "tiny", Family: "llama", Capabilities: []string{"completion"}})
	_, err := o.Chat(context.Background(), core.ChatRequest{
		Model: "tiny", Messages: []core.Message{{Role: "user", Content: "hi"}},
		Tools: []core.ToolSpec{{Name: "log_note"}},
	}, nil)
	if !errors.Is(err, core.ErrModelUnavailable) || !strings.Contains(err.Error(), "does not support tools") {
		t.Errorf("err = %v, want Ollama's 'does not support tools'", err)
	}
	if srv.Pending() != 0 {
		t.Errorf("no reply should be scripted or used")
	}
}

func TestOllamaHostAsOllamaReadsIt(t *testing.T) {
	for env, want := range map[string]string{
		"":                        "http://127.0.0.1:11434",
		"0.0.0.0":                 "http://0.0.0.0:11434",
		"127.0.0.1:5000":          "http://127.0.0.1:5000",
		"https://ollama.lan":      "https://ollama.lan:443",
		"http://10.0.0.2:8080/ol": "http://10.0.0.2:8080/ol",
	} {
		t.Setenv("OLLAMA_HOST", env)
		o, err := core.NewOllama(nil)
		if err != nil {
			t.Fatalf("OLLAMA_HOST=%q: %v", env, err)
		}
		if o.Host() != want {
			t.Errorf("OLLAMA_HOST=%q: Host() = %q, want %q", env, o.Host(), want)
		}
	}
	t.Setenv("OLLAMA_HOST", "ftp://example.com:21")
	if _, err := core.NewOllama(nil); !errors.Is(err, core.ErrModelUnavailable) {
		t.Errorf("ftp scheme: err = %v, want refusal", err)
	}
}

func TestNormalizeModel(t *testing.T) {
	for in, want := range map[string]string{
		"llama3.2":    "llama3.2:latest",
		" llama3.2 ":  "llama3.2:latest",
		"llama3.2:3b": "llama3.2:3b",
		"registry.ollama.ai/library/llama3.2:latest": "llama3.2:latest",
		"library/qwen3": "qwen3:latest",
		"me/mymodel":    "me/mymodel:latest",
		"hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF": "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:latest",
		"":          "",
		"bad name!": "bad name!",
	} {
		if got := core.NormalizeModel(in); got != want {
			t.Errorf("NormalizeModel(%q) = %q, want %q", in, got, want)
		}
	}
}

// A server that accepts the connection and never answers: the start-up
// check gives up after the stall timeout, as unavailable, saying why,
// instead of hanging (the test's own deadline is only a backstop).
func TestCheckGivesUpOnASilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16)
	accepting := make(chan struct{})
	defer func() {
		ln.Close()
		<-accepting
		close(held)
		for c := range held {
			c.Close()
		}
	}()
	go func() {
		defer close(accepting)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c // held open, never answered
		}
	}()
	t.Setenv("OLLAMA_HOST", ln.Addr().String())
	o, err := core.NewOllama(nil)
	if err != nil {
		t.Fatal(err)
	}
	o.StallTimeout = 150 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		_, err := o.Check(context.Background(), "tiny")
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Check still waiting on a silent server after a minute")
	}
	if !errors.Is(err, core.ErrModelUnavailable) || !strings.Contains(err.Error(), "did not answer within 150ms") {
		t.Fatalf("err = %v", err)
	}
}
