// Package ollamatest is a fake Ollama server for tests. It speaks the wire
// protocol of Ollama v0.9.6 (/api/chat streaming NDJSON with tool calls and
// stream:false, /api/embed, /api/show, /api/tags, /api/ps, /api/version, and Ollama's error
// bodies), answers chat requests from a script, and records every chat
// request so a test can assert exactly what was sent.
//
//	srv := ollamatest.New(t)
//	t.Setenv("OLLAMA_HOST", srv.Host())
//	srv.Script(ollamatest.Text("Hello there"), ollamatest.Cut("half a"))
//	... run the code under test ...
//	reqs := srv.Requests()
package ollamatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Version is what /api/version reports.
const Version = "0.9.6"

// DefaultNumCtx is Ollama's num_ctx when a request does not set one
// (OLLAMA_CONTEXT_LENGTH's default in v0.9.6).
const DefaultNumCtx = 4096

// Model is an installed model as /api/tags and /api/show describe it.
type Model struct {
	Name          string // as pulled: "llama3.2" and "llama3.2:latest" are the same model
	ContextLength int    // reported as model_info "<Family>.context_length"
	Family        string // architecture, e.g. "llama"
	ParameterSize string
	Quantization  string
	Capabilities  []string // "completion", "tools", ...
	// EmbeddingLength is model_info's "<Family>.embedding_length" and the
	// length of its /api/embed vectors (0: 3072, llama3.2's).
	EmbeddingLength int
}

// Llama32 is the model New installs: what `ollama pull llama3.2` gives.
func Llama32() Model {
	return Model{
		Name: "llama3.2:latest", ContextLength: 131072, Family: "llama",
		ParameterSize: "3.2B", Quantization: "Q4_K_M",
		Capabilities: []string{"completion", "tools"},
	}
}

// Server is a running fake Ollama. It is safe for concurrent use.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:41234.
	URL string

	srv  *httptest.Server
	stop chan struct{} // closed by Close: releases stalled handlers

	mu       sync.Mutex
	models   []Model
	script   []Reply
	fallback *Reply
	requests []api.ChatRequest
	embeds   [][]string // inputs of each /api/embed request
	// loaded are the models in memory, as /api/ps lists them: a model is
	// loaded by the first chat that reaches it (its hold released) and
	// unloaded by a request with keep_alive 0, as Ollama's scheduler does.
	loaded map[string]bool
	psAsks int // /api/ps requests
	closed bool
}

// New starts a fake server with llama3.2 installed and an empty script; it
// is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start("")
	if err != nil {
		t.Fatalf("ollamatest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake server listening on addr ("" for a free loopback
// port). The caller must Close it.
func Start(addr string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	s := &Server{stop: make(chan struct{}), models: []Model{Llama32()}}
	s.srv = httptest.NewUnstartedServer(s.routes())
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Host is the value for OLLAMA_HOST.
func (s *Server) Host() string { return strings.TrimPrefix(s.URL, "http://") }

// Close stops the server; stalled replies are released first. It may be
// called more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	s.mu.Unlock()
	s.srv.Close()
}

// SetModels replaces the installed models.
func (s *Server) SetModels(models ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]Model(nil), models...)
}

// Script queues replies; each chat request takes the next one.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Default sets the reply used once the script is exhausted (benchmarks
// and long sessions). Without one, an unscripted request gets HTTP 500
// "ollamatest: no scripted reply left".
func (s *Server) Default(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &r
}

// Requests returns every chat request received so far, in order, as decoded
// from the wire.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.ChatRequest(nil), s.requests...)
}

// Pending is how many scripted replies have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// PromptTokens is the fake's prompt_eval_count before num_ctx truncation:
// the characters of every message's content and of the tool list (as a
// template prints it), divided by four, rounded up.
func PromptTokens(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len([]rune(m.Content))
	}
	for _, t := range req.Tools { // a template prints the tool list too
		n += len([]rune(t.String()))
	}
	return (n + 3) / 4
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	running := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Ollama is running")
	}
	mux.HandleFunc("GET /{$}", running) // GET patterns also answer HEAD
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("GET /api/ps", s.ps)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/embed", s.embed)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// find resolves a name as Ollama does: "x" means "x:latest", the default
// registry and namespace may be spelled out, case does not matter.
func (s *Server) find(name string) (Model, bool) {
	want := model.ParseName(name)
	if !want.IsValid() {
		return Model{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if strings.EqualFold(model.ParseName(m.Name).DisplayShortest(), want.DisplayShortest()) {
			return m, true
		}
	}
	return Model{}, false
}

// installed finds the model a chat or embed request names, answering 400
// or 404 as Ollama does when there is none.
func (s *Server) installed(w http.ResponseWriter, name string) (Model, bool) {
	if !model.ParseName(name).IsValid() {
		writeError(w, http.StatusBadRequest, "model is required")
		return Model{}, false
	}
	m, ok := s.find(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", name))
	}
	return m, ok
}

func details(m Model) api.ModelDetails {
	return api.ModelDetails{
		Format: "gguf", Family: m.Family, Families: []string{m.Family},
		ParameterSize: m.ParameterSize, QuantizationLevel: m.Quantization,
	}
}

// modifiedAt is when the fake models were "pulled": fixed, so output is stable.
func modifiedAt() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }

func (s *Server) setLoaded(name string, loaded bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded == nil {
		s.loaded = map[string]bool{}
	}
	s.loaded[name] = loaded
}

// ps answers /api/ps: the loaded models, in Ollama's shape.
func (s *Server) ps(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.psAsks++
	list := api.ProcessResponse{Models: []api.ProcessModelResponse{}}
	for _, m := range s.models {
		if !s.loaded[m.Name] {
			continue
		}
		name := model.ParseName(m.Name).DisplayShortest()
		list.Models = append(list.Models, api.ProcessModelResponse{
			Name: name, Model: name, Size: 3400000000, Digest: fmt.Sprintf("%064x", len(name)),
			Details: details(m), ExpiresAt: time.Now().Add(5 * time.Minute), SizeVRAM: 0,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// PSAsks is how many times /api/ps was asked.
func (s *Server) PSAsks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.psAsks
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	list := api.ListResponse{Models: []api.ListModelResponse{}}
	for _, m := range s.models {
		name := model.ParseName(m.Name).DisplayShortest()
		list.Models = append(list.Models, api.ListModelResponse{
			Name: name, Model: name, ModifiedAt: modifiedAt(), Size: 2019393189,
			Digest: fmt.Sprintf("%064x", len(name)), Details: details(m),
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// decode reads a JSON request body, answering 400 as Ollama does when it is
// missing or invalid.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "missing request body")
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Model == "" {
		req.Model = req.Name
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.find(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	caps := []model.Capability{}
	for _, c := range m.Capabilities {
		caps = append(caps, model.Capability(c))
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Template:   "{{ .Prompt }}",
		Parameters: `stop                           "<|eot_id|>"`,
		Details:    details(m),
		ModelInfo: map[string]any{
			"general.architecture":             m.Family,
			"general.parameter_count":          3212749888,
			m.Family + ".context_length":       m.ContextLength,
			m.Family + ".embedding_length":     embeddingLength(m),
			m.Family + ".block_count":          28,
			m.Family + ".attention.head_count": 24,
		},
		Capabilities: caps,
		ModifiedAt:   modifiedAt(),
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if !decode(w, r, &req) {
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	m, ok := s.installed(w, req.Model)
	if !ok {
		return
	}
	if len(req.Tools) > 0 && !slices.Contains(m.Capabilities, "tools") {
		full := model.ParseName(req.Model).String()
		writeError(w, http.StatusBadRequest, full+" does not support tools")
		return
	}
	if len(req.Messages) == 0 {
		// Ollama's "load the model" request.
		s.setLoaded(m.Name, req.KeepAlive == nil || req.KeepAlive.Duration != 0)
		writeJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load",
		})
		return
	}

	reply, ok := s.next()
	if !ok {
		writeError(w, http.StatusInternalServerError, "ollamatest: no scripted reply left")
		return
	}
	if reply.Hold != nil {
		select {
		case <-reply.Hold:
		case <-r.Context().Done():
			return
		}
	}
	if reply.Status != 0 {
		writeError(w, reply.Status, reply.Error)
		return
	}
	s.setLoaded(m.Name, req.KeepAlive == nil || req.KeepAlive.Duration != 0)
	if req.Stream != nil && !*req.Stream {
		s.whole(w, r, req, reply)
		return
	}
	s.stream(w, r, req, reply)
}

func (s *Server) next() (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) > 0 {
		r := s.script[0]
		s.script = s.script[1:]
		return r, true
	}
	if s.fallback != nil {
		return *s.fallback, true
	}
	return Reply{}, false
}

// answer is what a reply amounts to once the request's options are applied.
type answer struct {
	chunks     []string
	toolCalls  []api.ToolCall
	doneReason string
	metrics    api.Metrics
}

func plan(req api.ChatRequest, reply Reply) answer {
	a := answer{chunks: Chunks(reply.Text), doneReason: "stop"}
	if n := intOption(req.Options, "num_predict", 0); n > 0 && len(a.chunks) > n {
		a.chunks, a.doneReason = a.chunks[:n], "length"
	}
	if reply.DoneReason != "" {
		a.doneReason = reply.DoneReason
	}
	for _, tc := range reply.ToolCalls {
		args := tc.Arguments
		if args == nil {
			args = map[string]any{}
		}
		a.toolCalls = append(a.toolCalls, api.ToolCall{Function: api.ToolCallFunction{Name: tc.Name, Arguments: args}})
	}
	prompt := reply.PromptEvalCount
	if prompt == 0 {
		// Ollama keeps only the last num_ctx tokens of a longer prompt.
		prompt = min(PromptTokens(req), intOption(req.Options, "num_ctx", DefaultNumCtx))
	}
	a.metrics = api.Metrics{
		TotalDuration: 21 * time.Millisecond, LoadDuration: 3 * time.Millisecond,
		PromptEvalCount: prompt, PromptEvalDuration: 9 * time.Millisecond,
		EvalCount: len(a.chunks) + len(a.toolCalls), EvalDuration: 8 * time.Millisecond,
	}
	return a
}

// stream answers as Ollama does by default: NDJSON, one chunk per line,
// ending with a done:true chunk carrying the metrics. Nothing is flushed
// chunk by chunk: a reply goes out in one piece when the handler returns,
// or, for a Cut or Stall, in one flush before the cut or silence. The only
// silence a client sees is thus the scripted one, never a gap between two
// chunks on a busy machine: a test's short stall timeout trips where the
// script says and nowhere else.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req api.ChatRequest, reply Reply) {
	a := plan(req, reply)
	started := false
	send := func(v any) {
		if !started {
			w.Header().Set("Content-Type", "application/x-ndjson")
			started = true
		}
		b, _ := json.Marshal(v)
		w.Write(append(b, '\n'))
	}
	chunk := func(msg api.Message) api.ChatResponse {
		return api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg}
	}
	for _, c := range a.chunks {
		send(chunk(api.Message{Role: "assistant", Content: c}))
	}
	if len(a.toolCalls) > 0 {
		send(chunk(api.Message{Role: "assistant", ToolCalls: a.toolCalls}))
	}
	switch {
	case reply.Error != "":
		send(map[string]string{"error": reply.Error})
		return
	case s.broken(w, r, reply):
		return
	case reply.Malformed:
		if !started {
			w.Header().Set("Content-Type", "application/x-ndjson")
		}
		fmt.Fprintf(w, "{\"model\":%q,\"message\":{\"role\":\"assistant\",\"content\":\"\n", req.Model)
		return
	}
	done := chunk(api.Message{Role: "assistant"})
	done.Done, done.DoneReason, done.Metrics = true, a.doneReason, a.metrics
	send(done)
}

// whole answers a stream:false request: one JSON object with everything.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, req api.ChatRequest, reply Reply) {
	a := plan(req, reply)
	switch {
	case reply.Error != "":
		writeError(w, http.StatusInternalServerError, reply.Error)
		return
	case s.broken(w, r, reply):
		return
	case reply.Malformed:
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintf(w, "{\"model\":%q,\"message\":{\"role\":", req.Model)
		return
	}
	writeJSON(w, http.StatusOK, api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(),
		Message: api.Message{Role: "assistant", Content: strings.Join(a.chunks, ""), ToolCalls: a.toolCalls},
		Done:    true, DoneReason: a.doneReason, Metrics: a.metrics,
	})
}

// broken carries out a reply scripted to fail the connection (Cut or
// Stall), the same way whether it streams or not; false means neither.
// What was written goes out first: the text reaches the client whole
// before the cut or the silence.
func (s *Server) broken(w http.ResponseWriter, r *http.Request, reply Reply) bool {
	switch {
	case reply.Cut:
		flush(w)
		s.hangUp(w)
	case reply.Stall:
		flush(w)
		s.hold(r)
	default:
		return false
	}
	return true
}

// hangUp drops the connection mid-response, flushing what was written: the
// client sees its body end without the chunked terminator.
func (s *Server) hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	buf.Flush()
	conn.Close()
}

// hold keeps a reply open until the client gives up or the server closes.
func (s *Server) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.stop:
	}
}

// flush sends what the handler has written so far; with nothing written it
// sends nothing, not even the headers (a reply stalled before its first
// byte stays silent).
func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok && w.Header().Get("Content-Type") != "" {
		f.Flush()
	}
}

func intOption(opts map[string]any, key string, def int) int {
	if v, ok := opts[key].(float64); ok {
		return int(v)
	}
	return def
}
