package ollamatest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/rogpeppe/go-internal/testscript"

	"agent/core/ollamatest"
)

// post sends a raw JSON body and returns the status, content type and body:
// these tests check the bytes on the wire, not what a client makes of them.
func post(t *testing.T, srv *ollamatest.Server, path, body string) (int, string, string) {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func TestChatStreamsNDJSONLikeOllama(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Text("Hi there you"))
	status, ctype, body := post(t, srv, "/api/chat",
		`{"model":"llama3.2","messages":[{"role":"system","content":"0123456789"},{"role":"user","content":"hello"}],"options":{"num_ctx":8192},"keep_alive":"10m"}`)
	if status != 200 || ctype != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q", status, ctype)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 3 chunks and the final one:\n%s", len(lines), body)
	}
	for i, want := range []string{"Hi", " there", " you"} {
		var chunk map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &chunk); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		msg, _ := chunk["message"].(map[string]any)
		if chunk["model"] != "llama3.2" || chunk["done"] != false || chunk["created_at"] == nil ||
			msg["role"] != "assistant" || msg["content"] != want {
			t.Errorf("line %d = %s", i, lines[i])
		}
		if _, ok := chunk["done_reason"]; ok {
			t.Errorf("line %d: done_reason before the end: %s", i, lines[i])
		}
	}
	var final api.ChatResponse
	if err := json.Unmarshal([]byte(lines[3]), &final); err != nil {
		t.Fatal(err)
	}
	// (10 + 5 chars) / 4, rounded up.
	if !final.Done || final.DoneReason != "stop" || final.PromptEvalCount != 4 || final.EvalCount != 3 || final.TotalDuration == 0 || final.Message.Content != "" {
		t.Errorf("final line = %s", lines[3])
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].KeepAlive.Duration.String() != "10m0s" || reqs[0].Options["num_ctx"] != float64(8192) {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestChatOptionsShapeTheReply(t *testing.T) {
	srv := ollamatest.New(t)
	long := strings.Repeat("x", 400)
	srv.Script(ollamatest.Text("one two three four"), ollamatest.Text("fits"))

	// num_predict stops generation early, as Ollama does.
	_, _, body := post(t, srv, "/api/chat", `{"model":"llama3.2","messages":[{"role":"user","content":"q"}],"options":{"num_predict":2}}`)
	if !strings.Contains(body, `"done_reason":"length"`) || strings.Contains(body, "three") {
		t.Errorf("num_predict 2 not honoured:\n%s", body)
	}
	// A prompt longer than num_ctx is silently cut to num_ctx tokens.
	_, _, body = post(t, srv, "/api/chat", `{"model":"llama3.2","messages":[{"role":"user","content":"`+long+`"}],"options":{"num_ctx":64}}`)
	if !strings.Contains(body, `"prompt_eval_count":64,`) {
		t.Errorf("prompt of 100 tokens in num_ctx 64:\n%s", body)
	}
}

func TestChatToolCallsAndNonStreaming(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.CallTool("log_note", map[string]any{"text": "hi"}), ollamatest.Text("all done now"))
	_, _, body := post(t, srv, "/api/chat", `{"model":"llama3.2","messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"log_note"}}]}`)
	if !strings.Contains(body, `"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"log_note","arguments":{"text":"hi"}}}]},"done":false}`) {
		t.Errorf("tool call chunk missing:\n%s", body)
	}
	status, ctype, body := post(t, srv, "/api/chat", `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"q"}]}`)
	var resp api.ChatResponse
	if err := json.Unmarshal([]byte(body), &resp); err != nil || status != 200 || !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("stream:false: %d %q %v\n%s", status, ctype, err, body)
	}
	if !resp.Done || resp.Message.Content != "all done now" || resp.DoneReason != "stop" {
		t.Errorf("stream:false reply = %s", body)
	}
}

// A stalled reply's text reaches the client in one piece, before the
// silence: the fake writes it in one flush, so the first read of the raw
// connection holds the headers and every chunk. A client's stall timeout,
// however short, can thus only trip in the scripted silence, never between
// two chunks on a busy machine.
func TestStalledReplyArrivesInOnePiece(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Stall("The answer is forty two"))
	conn, err := net.Dial("tcp", srv.Host())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"llama3.2","messages":[{"role":"user","content":"q"}]}`
	fmt.Fprintf(conn, "POST /api/chat HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", srv.Host(), len(body), body)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // fails the test only if nothing comes at all
	buf := make([]byte, 64<<10)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	got := string(buf[:n])
	for _, c := range ollamatest.Chunks("The answer is forty two") {
		if !strings.Contains(got, fmt.Sprintf(`"content":%q`, c)) {
			t.Fatalf("the first read lacks chunk %q:\n%s", c, got)
		}
	}
}

func TestErrorsAreOllamas(t *testing.T) {
	srv := ollamatest.New(t)
	for _, tt := range []struct{ path, body, want string }{
		{"/api/chat", `{"model":"mistral","messages":[{"role":"user","content":"q"}]}`, `404 {"error":"model \"mistral\" not found, try pulling it first"}`},
		{"/api/show", `{"model":"mistral"}`, `404 {"error":"model 'mistral' not found"}`},
		{"/api/chat", ``, `400 {"error":"missing request body"}`},
		{"/api/chat", `{"model":"","messages":[]}`, `400 {"error":"model is required"}`},
		{"/api/chat", `{"model":"llama3.2","messages":[{"role":"user","content":"q"}]}`, `500 {"error":"ollamatest: no scripted reply left"}`},
	} {
		status, _, body := post(t, srv, tt.path, tt.body)
		if got := fmt.Sprintf("%d %s", status, strings.TrimSpace(body)); got != tt.want {
			t.Errorf("POST %s %s:\n got %s\nwant %s", tt.path, tt.body, got, tt.want)
		}
	}
	srv.SetModels(ollamatest.Model{Name: "tiny", Family: "llama", Capabilities: []string{"completion"}})
	status, _, body := post(t, srv, "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"x"}}]}`)
	if status != 400 || !strings.Contains(body, `registry.ollama.ai/library/tiny:latest does not support tools`) {
		t.Errorf("tools on a model without them: %d %s", status, body)
	}
}

func TestShowTagsVersionThroughTheRealClient(t *testing.T) {
	srv := ollamatest.New(t)
	u, _ := url.Parse(srv.URL)
	c := api.NewClient(u, http.DefaultClient)
	ctx := context.Background()

	if v, err := c.Version(ctx); err != nil || v != "0.9.6" {
		t.Errorf("version = %q, %v", v, err)
	}
	if err := c.Heartbeat(ctx); err != nil {
		t.Errorf("heartbeat: %v", err)
	}
	list, err := c.List(ctx)
	if err != nil || len(list.Models) != 1 || list.Models[0].Name != "llama3.2:latest" || list.Models[0].Details.Family != "llama" {
		t.Errorf("tags = %+v, %v", list, err)
	}
	show, err := c.Show(ctx, &api.ShowRequest{Model: "registry.ollama.ai/library/LLAMA3.2:latest"})
	if err != nil {
		t.Fatal(err)
	}
	if show.ModelInfo["general.architecture"] != "llama" || show.ModelInfo["llama.context_length"] != float64(131072) ||
		len(show.Capabilities) != 2 || show.Capabilities[1] != "tools" {
		t.Errorf("show = %+v", show)
	}
}

func TestChunksRejoin(t *testing.T) {
	for _, s := range []string{"", "a", "Hello there, friend", "  two  spaces\nand a line", "supercalifragilistic", "日本語のテキストです、長い"} {
		chunks := ollamatest.Chunks(s)
		if strings.Join(chunks, "") != s {
			t.Errorf("Chunks(%q) = %q: does not rejoin", s, chunks)
		}
		for _, c := range chunks {
			if n := len([]rune(c)); n > 8 || n == 0 {
				t.Errorf("Chunks(%q): chunk %q has %d runes", s, c, n)
			}
		}
	}
}

// TestScriptCommand runs testdata/*.txtar with the fakeollama command and a
// one-line chat client, the way cmd/agent's transcripts would use it.
func TestScriptCommand(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"fakeollama": ollamatest.ScriptCommand(),
			"chat": func(ts *testscript.TestScript, neg bool, args []string) {
				u, err := url.Parse("http://" + ts.Getenv("OLLAMA_HOST"))
				ts.Check(err)
				var out strings.Builder
				err = api.NewClient(u, http.DefaultClient).Chat(context.Background(),
					&api.ChatRequest{Model: args[0], Messages: []api.Message{{Role: "user", Content: args[1]}}},
					func(r api.ChatResponse) error { out.WriteString(r.Message.Content); return nil })
				if neg {
					if err == nil {
						ts.Fatalf("chat succeeded")
					}
					fmt.Fprintln(ts.Stderr(), err)
					return
				}
				ts.Check(err)
				fmt.Fprintln(ts.Stdout(), out.String())
			},
		},
	})
}

// TestReadScript checks the JSON script format the
// fakeollama command reads, including its refusal of unknown fields.
func TestReadScript(t *testing.T) {
	replies, err := ollamatest.ReadScript(strings.NewReader(`[{"text":"a"},{"tool_calls":[{"name":"n","arguments":{"k":1}}]},{"status":503,"error":"busy"},{"text":"p","cut":true}]`))
	if err != nil || len(replies) != 4 || replies[1].ToolCalls[0].Name != "n" || replies[2].Status != 503 || !replies[3].Cut {
		t.Errorf("ReadScript = %+v, %v", replies, err)
	}
	if _, err := ollamatest.ReadScript(strings.NewReader(`[{"txt":"typo"}]`)); err == nil {
		t.Error("unknown field accepted")
	}
}
