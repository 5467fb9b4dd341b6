// Package ollama is the Model (core/llm) backed by an Ollama server,
// through Ollama's own api client: requests with every option stated,
// streamed replies bounded by a load and a stall timeout, and Ollama's
// errors told apart (unreachable, model missing) as ErrUnavailable.
package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/types/model"

	"agent/core/llm"
)

// Timeouts for a streamed reply. The api client has none of its own, and a
// server that stops sending must not hang the terminal forever.
const (
	// DefaultStallTimeout is how long a reply may go without a new chunk once
	// it has started.
	DefaultStallTimeout = 60 * time.Second
	// DefaultLoadTimeout is how long to wait for the first chunk: Ollama
	// sends nothing while it loads the model and evaluates the prompt, which
	// for a big model on a CPU takes minutes. Same as Ollama's own
	// OLLAMA_LOAD_TIMEOUT default.
	DefaultLoadTimeout = 5 * time.Minute
)

// Values sent when a llm.ChatRequest leaves them zero, so that every request
// states them explicitly: Ollama's own num_ctx default (4096) would silently
// cut the front of a long prompt, and a keep_alive of 0 would unload the model
// after every turn.
const (
	ollamaFallbackNumCtx    = 8192
	ollamaFallbackKeepAlive = 5 * time.Minute
)

// ErrUnavailable marks Ollama unreachable or the model missing (core's
// ErrUnavailable, exit 4).
var ErrUnavailable = errors.New("model unavailable")

// Client is the Model backed by an Ollama server, through its own api client.
type Client struct {
	client *api.Client
	host   string // base URL, e.g. http://127.0.0.1:11434

	// StallTimeout and LoadTimeout bound a streamed reply (see the defaults);
	// zero means the default.
	StallTimeout time.Duration
	LoadTimeout  time.Duration
}

var _ llm.Model = (*Client)(nil)

// New returns an adapter for the server at OLLAMA_HOST, read exactly
// as Ollama reads it (default http://127.0.0.1:11434). A nil httpClient means
// one without an overall timeout: replies stream for as long as they need,
// bounded by the stall and load timeouts instead.
func New(httpClient *http.Client) (*Client, error) {
	base := envconfig.Host()
	if base.Scheme != "http" && base.Scheme != "https" {
		return nil, fmt.Errorf("%w: OLLAMA_HOST=%q: scheme must be http or https", ErrUnavailable, envconfig.Var("OLLAMA_HOST"))
	}
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	return &Client{client: api.NewClient(base, httpClient), host: base.String()}, nil
}

// Host is the server's base URL, as used in messages.
func (o *Client) Host() string { return o.host }

// Version asks the server for its version; it is also the reachability check.
func (o *Client) Version(ctx context.Context) (string, error) {
	ctx, cancel := o.quick(ctx)
	defer cancel()
	v, err := o.client.Version(ctx)
	if err != nil {
		return "", o.classify(o.late(ctx, err), "")
	}
	return v, nil
}

// errNoAnswer is the cause of a quick request's deadline.
var errNoAnswer = errors.New("no answer")

// quick bounds a request that a working server answers at once (version,
// show): a server that accepts the connection and never answers — wedged,
// or the port held by something else — must not hang the terminal. The
// bound is the stall timeout, the longest the user agreed to wait for a
// silent server.
func (o *Client) quick(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, ollamaTimeout(o.StallTimeout, DefaultStallTimeout), errNoAnswer)
}

// late words a quick request that ran out of time.
func (o *Client) late(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errNoAnswer) {
		return &ollamaError{msg: fmt.Sprintf("Ollama at %s accepted the connection but did not answer within %s (a wedged server, or another program on its port?)",
			o.host, ollamaTimeout(o.StallTimeout, DefaultStallTimeout)), cause: err}
	}
	return err
}

// Show describes an installed model. The context length comes from the
// model's own metadata, "<architecture>.context_length".
func (o *Client) Show(ctx context.Context, name string) (llm.ModelInfo, error) {
	ctx, cancel := o.quick(ctx)
	defer cancel()
	resp, err := o.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusNotFound {
			return llm.ModelInfo{}, o.modelNotFound(name)
		}
		return llm.ModelInfo{}, o.classify(o.late(ctx, err), name)
	}
	info := llm.ModelInfo{
		Name:          NormalizeModel(name),
		Family:        resp.Details.Family,
		ParameterSize: resp.Details.ParameterSize,
		Quantization:  resp.Details.QuantizationLevel,
		Capabilities:  []string{},
	}
	if arch, ok := resp.ModelInfo["general.architecture"].(string); ok {
		if n, ok := resp.ModelInfo[arch+".context_length"].(float64); ok {
			info.ContextLength = int(n)
		}
	}
	for _, c := range resp.Capabilities {
		info.Capabilities = append(info.Capabilities, string(c))
	}
	return info, nil
}

// Check is what runs before the first turn: is the server reachable, and is
// the model installed? Both failures wrap ErrUnavailable and say what to
// do about them.
func (o *Client) Check(ctx context.Context, name string) (llm.ModelInfo, error) {
	if _, err := o.Version(ctx); err != nil {
		return llm.ModelInfo{}, err
	}
	return o.Show(ctx, name)
}

// NormalizeModel spells a model name the way Ollama lists it: a missing tag
// means ":latest" and the default registry and namespace are dropped
// ("llama3.2" -> "llama3.2:latest"). A name Ollama would reject is returned
// as given, for the server to refuse with its own message.
func NormalizeModel(name string) string {
	name = strings.TrimSpace(name)
	n := model.ParseName(name)
	if !n.IsValid() {
		return name
	}
	return n.DisplayShortest()
}

// errOllamaStalled is the cancel cause set by the stall watchdog.
var errOllamaStalled = errors.New("stalled")

// Chat streams one reply. A watchdog cancels the request when no chunk has
// arrived for LoadTimeout (before the first) or StallTimeout (after it).
func (o *Client) Chat(ctx context.Context, req llm.ChatRequest, onToken func(string)) (llm.Reply, error) {
	var reply llm.Reply
	var content strings.Builder
	done := false

	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := ollamaTimeout(o.StallTimeout, DefaultStallTimeout)
	load := ollamaTimeout(o.LoadTimeout, DefaultLoadTimeout)
	watchdog := time.AfterFunc(load, func() { cancel(errOllamaStalled) })
	waited := load

	err := o.client.Chat(reqCtx, ollamaChatRequest(req), func(r api.ChatResponse) error {
		watchdog.Reset(stall)
		waited = stall
		if r.Message.Content != "" {
			content.WriteString(r.Message.Content)
			if onToken != nil {
				onToken(r.Message.Content)
			}
		}
		for _, tc := range r.Message.ToolCalls {
			reply.ToolCalls = append(reply.ToolCalls, llm.ToolCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		if r.Done {
			done = true
			reply.PromptEvalCount = r.PromptEvalCount
			reply.PromptEvalDuration = r.PromptEvalDuration
			reply.EvalCount = r.EvalCount
			reply.DoneReason = r.DoneReason
		}
		return nil
	})
	watchdog.Stop()
	reply.Content = content.String()

	switch {
	case ctx.Err() != nil:
		return reply, fmt.Errorf("reply from %s interrupted: %w", req.Model, ctx.Err())
	case errors.Is(context.Cause(reqCtx), errOllamaStalled):
		return reply, &ollamaError{
			msg: fmt.Sprintf("Ollama at %s stalled: nothing received for %s (model %s)", o.host, waited, req.Model),
		}
	case err != nil:
		return reply, o.classify(err, req.Model)
	case !done:
		// The api client ends quietly when the connection drops mid-body;
		// only the missing final chunk tells a cut reply from a whole one.
		return reply, &ollamaError{
			msg: fmt.Sprintf("reply from Ollama at %s was cut off before it finished (model %s)", o.host, req.Model),
		}
	}
	return reply, nil
}

// ollamaChatRequest renders a llm.ChatRequest on the wire types, with num_ctx and
// keep_alive always set.
func ollamaChatRequest(req llm.ChatRequest) *api.ChatRequest {
	stream := true
	numCtx := req.NumCtx
	if numCtx <= 0 {
		numCtx = ollamaFallbackNumCtx
	}
	keep := req.KeepAlive
	if keep == 0 && !req.Unload {
		keep = ollamaFallbackKeepAlive
	}
	opts := map[string]any{"num_ctx": numCtx}
	if req.NumPredict != 0 {
		opts["num_predict"] = req.NumPredict
	}
	out := &api.ChatRequest{
		Model:     req.Model,
		Stream:    &stream,
		KeepAlive: &api.Duration{Duration: keep},
		Options:   opts,
		Format:    req.Format,
		Messages:  make([]api.Message, 0, len(req.Messages)),
	}
	for _, m := range req.Messages {
		am := api.Message{Role: m.Role, Content: m.Content, ToolName: m.ToolName}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if args == nil {
				args = map[string]any{} // chat templates range over it
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{Function: api.ToolCallFunction{Name: tc.Name, Arguments: args}})
		}
		out.Messages = append(out.Messages, am)
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, ollamaTool(t))
	}
	return out
}

// ollamaToolProperty is the anonymous property type of api.ToolFunction, named
// here so it can be built.
type ollamaToolProperty = struct {
	Type        api.PropertyType `json:"type"`
	Items       any              `json:"items,omitempty"`
	Description string           `json:"description"`
	Enum        []any            `json:"enum,omitempty"`
}

// ToolsChars is the size of a tool list as a model reads it: the JSON of
// Ollama's own tool type, which its templates print (llama3.x in the last
// user message, so every turn; qwen2.x in the system block).
func ToolsChars(specs []llm.ToolSpec) int {
	if len(specs) == 0 {
		return 0
	}
	tools := make([]api.Tool, len(specs))
	for i, s := range specs {
		tools[i] = ollamaTool(s)
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

func ollamaTool(t llm.ToolSpec) api.Tool {
	tool := api.Tool{Type: "function"}
	tool.Function.Name = t.Name
	tool.Function.Description = t.Description
	tool.Function.Parameters.Type = "object"
	tool.Function.Parameters.Required = []string{}
	tool.Function.Parameters.Properties = map[string]ollamaToolProperty{}
	for _, p := range t.Parameters {
		prop := ollamaToolProperty{Type: api.PropertyType{p.Type}, Description: p.Description, Items: p.Items}
		for _, e := range p.Enum {
			prop.Enum = append(prop.Enum, e)
		}
		tool.Function.Parameters.Properties[p.Name] = prop
		if p.Required {
			tool.Function.Parameters.Required = append(tool.Function.Parameters.Required, p.Name)
		}
	}
	return tool
}

// ollamaError is a failure talking to Ollama: its message is the one shown to
// the user, and it always matches ErrUnavailable (exit 4).
type ollamaError struct {
	msg      string
	cause    error
	notFound bool // the server is fine; the model is not installed
}

func (e *ollamaError) Error() string { return e.msg }

func (e *ollamaError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrUnavailable}
	}
	return []error{ErrUnavailable, e.cause}
}

func ollamaModelNotFound(name string) error {
	name = strings.TrimSpace(name)
	return &ollamaError{msg: fmt.Sprintf("model %s not found: run 'ollama pull %s'", NormalizeModel(name), name), notFound: true}
}

// installedShown bounds the models a "not found" names: enough to spot a
// typo or a tag, not a screenful.
const installedShown = 8

// modelNotFound is ollamaModelNotFound with what is installed instead, so
// a mistyped name or tag is seen at once, and how to pick one (--model).
// Asked once, bounded as any quick request; if Ollama cannot list them,
// the pull command alone is said.
func (o *Client) modelNotFound(name string) error {
	err := ollamaModelNotFound(name).(*ollamaError)
	ctx, cancel := o.quick(context.Background())
	defer cancel()
	list, lerr := o.client.List(ctx)
	if lerr != nil {
		return err
	}
	var names []string
	for _, m := range list.Models {
		if m.Name == NormalizeModel(name) {
			return err // listed yet refused (removed meanwhile): the list would mislead
		}
		names = append(names, m.Name)
	}
	switch {
	case len(names) == 0:
		err.msg += " (no model is installed yet)"
	case len(names) > installedShown:
		err.msg += fmt.Sprintf(", or use an installed one with --model (installed: %s, and %d more: ollama list)", strings.Join(names[:installedShown], ", "), len(names)-installedShown)
	default:
		err.msg += fmt.Sprintf(", or use an installed one with --model (installed: %s)", strings.Join(names, ", "))
	}
	return err
}

// isModelNotFound tells "model not installed" from the other failures.
// Unavailable is an error saying msg that is ErrUnavailable (exit 4).
func Unavailable(msg string) error { return &ollamaError{msg: msg} }

// IsModelNotFound reports whether err says the model is not installed (the
// server itself answered).
func IsModelNotFound(err error) bool {
	var oe *ollamaError
	return errors.As(err, &oe) && oe.notFound
}

// ollamaNotFound recognises Ollama's "model \"x\" not found, try pulling it
// first" (chat) and "model 'x' not found" (show).
func ollamaNotFound(msg string) bool {
	return strings.HasPrefix(msg, "model ") && strings.Contains(msg, " not found")
}

// classify turns an api client error into one that says what happened and
// what to do. name is the model involved, if any.
func (o *Client) classify(err error, name string) error {
	var oe *ollamaError
	if errors.As(err, &oe) {
		return err // already worded
	}
	var op *net.OpError
	var se api.StatusError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		return &ollamaError{msg: fmt.Sprintf("cannot reach Ollama at %s: is 'ollama serve' running?", o.host), cause: err}
	case name != "" && ollamaNotFound(err.Error()):
		return o.modelNotFound(name)
	case strings.HasPrefix(err.Error(), "unmarshal:"):
		return &ollamaError{msg: fmt.Sprintf("malformed reply from Ollama at %s: %v", o.host, err), cause: err}
	case errors.As(err, &se):
		return &ollamaError{msg: fmt.Sprintf("Ollama at %s answered %d: %s", o.host, se.StatusCode, se.Error()), cause: err}
	}
	return &ollamaError{msg: fmt.Sprintf("Ollama at %s: %v", o.host, err), cause: err}
}

func ollamaTimeout(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
