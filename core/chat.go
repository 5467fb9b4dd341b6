package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"agent/core/distill"
	"agent/core/window"
	"agent/memory"
	"agent/profile"
	"agent/soul"
)

// Defaults for a chat; each can be changed by a flag or environment variable.
const (
	DefaultNumCtx    = 8192
	DefaultKeepAlive = 10 * time.Minute
	DefaultRecallK   = 6
)

// Chat runs conversation turns over one open workspace. Build it with
// NewChat; it is used by one goroutine at a time.
type Chat struct {
	WS       *Workspace
	Model    Model
	Profile  *profile.Store
	Soul     *soul.Store
	Sessions *Sessions
	Memory   Recaller // nil: no recall (index unavailable)

	ModelName  string
	NumCtx     int
	ModelCtx   int // the model's context length, when Ollama said (0: unknown)
	NumPredict int
	KeepAlive  time.Duration // 0: unload the model after each reply, as Ollama means it
	RecallK    int
	NoLog      bool // do not append finished turns to today's log
	// AutoCompact compacts the session on a turn whose window moves,
	// before its request (a setting, off by default: see Compact). The
	// window then keeps the summary's room on every turn.
	AutoCompact bool
	// CompactModel writes the summaries (nil: the chat's model, through
	// DistillModel).
	CompactModel distill.Model
	// Placement is where recall goes (PlacementExchange when empty).
	Placement string
	// Identity lists the capabilities that show themselves in the identity
	// section (skills, integrations, reminders, jobs, digests).
	Identity []IdentitySource
	// MCP offers the integrations' tools (nil: none); NoTools is set for a
	// model without tool calling: no tool is sent at all.
	MCP     *MCP
	NoTools bool

	Now func() time.Time
	// notices, during a turn, collects what notify says, for its result.
	notices *[]string
	// Confirm asks the user a yes/no question on the terminal; nil when there
	// is no terminal, in which case anything needing consent is refused.
	Confirm func(question string) bool
	// Notify shows the user a one-line note (stderr): proposals, cuts, warnings.
	Notify func(string)
	// count is told (by a test) each thing a turn does once: "tool specs", …
	count func(what string)
}

// Recaller is what chat needs from the memory index.
type Recaller interface {
	// Recall refreshes the index if files changed, then returns the best k
	// passages for text (none is not an error).
	Recall(ctx context.Context, text string, k int) ([]Recalled, error)
	// Wrote says this process has just written to the memory files.
	Wrote()
}

// NewChat wires a chat over an open workspace.
func NewChat(ws *Workspace, model Model, modelName string, mem Recaller) *Chat {
	now := time.Now
	return &Chat{
		WS: ws, Model: model, Memory: mem,
		Profile:   profile.NewStore(ws.State, now),
		Soul:      soul.NewStore(ws.State, ws.Path(SoulFile), now),
		Sessions:  NewSessions(ws.State, now),
		ModelName: NormalizeModel(modelName),
		NumCtx:    DefaultNumCtx, KeepAlive: DefaultKeepAlive, RecallK: DefaultRecallK,
		Now:      now,
		Identity: []IdentitySource{SkillsIdentity(ws.Home), timeIdentity{ws.State}, digestIdentity{ws.Home}},
	}
}

func (c *Chat) notify(msg string) {
	if c.notices != nil {
		*c.notices = append(*c.notices, msg)
	}
	if c.Notify != nil {
		c.Notify(msg)
	}
}

// zone resolves user.timezone, warning through notify.
func (c *Chat) zone(name string) (*time.Location, string) { return UserZone(name, c.notify) }

// PickSession chooses the conversation a chat continues: the latest with
// cont (none yet: a new one, and started says so, as other chat tools do),
// the one called name (not created until its first message is stored, so a
// prompt or a chat that cannot start leaves nothing behind), else a new one
// (created by StartSession with its first message).
func (c *Chat) PickSession(ctx context.Context, cont bool, name string) (s Session, started bool, err error) {
	switch {
	case cont:
		s, err = c.Sessions.Latest(ctx)
		if errors.Is(err, ErrNoSession) {
			return Session{}, true, nil
		}
		return s, false, err
	case name != "":
		if err := ValidateSessionName(name); err != nil {
			return Session{}, false, err
		}
		s, err = c.Sessions.Get(ctx, name)
		if errors.Is(err, ErrNoSession) {
			return Session{Name: name}, false, nil
		}
		return s, false, err
	}
	return Session{}, false, nil
}

// StartSession creates a session: called name, or named from the clock in
// the user's zone (the zone the logs use too) when name is "". A name taken
// meanwhile by another process is that session.
func (c *Chat) StartSession(ctx context.Context, name string) (Session, error) {
	if name != "" {
		return c.Sessions.Named(ctx, name, c.ModelName)
	}
	tz, _, err := c.Profile.Get(ctx, "user.timezone")
	if err != nil {
		return Session{}, err
	}
	loc, _ := c.zone(tz)
	return c.Sessions.CreateAt(ctx, c.Now().In(loc), c.ModelName)
}

func (c *Chat) recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	if c.Memory == nil {
		return nil, nil
	}
	return c.Memory.Recall(ctx, text, k)
}

// reserve is the room kept for the reply: num_predict when set, else a
// quarter of the context up to 1024 tokens.
func (c *Chat) reserve() int {
	if c.NumPredict > 0 {
		return c.NumPredict
	}
	r := c.NumCtx / 4
	if r > 1024 {
		r = 1024
	}
	return r
}

// TurnResult is what one turn produced; it is also the --json shape.
// PromptEvalCount and PromptEvalDuration (nanoseconds) are Ollama's, for the
// turn's first request; PrefixReuse is how many of its RequestBytes the
// session's previous request began with too.
type TurnResult struct {
	Session            string       `json:"session"`
	Reply              string       `json:"reply"`
	ToolCalls          []ToolResult `json:"tool_calls"`
	PromptEvalCount    int          `json:"prompt_eval_count"`
	PromptEvalDuration int64        `json:"prompt_eval_duration"`
	PrefixReuse        int          `json:"prefix_reuse"`
	RequestBytes       int          `json:"request_bytes"`
	EvalCount          int          `json:"eval_count"`
	Layers             []Layer      `json:"layers"`
	Cuts               []string     `json:"cuts"`
	Interrupted        bool         `json:"interrupted"`
	// Notices is what the turn told the user on stderr (cuts, proposals,
	// tools not run); Error why it failed, "" when it did not.
	Notices []string `json:"notices"`
	Error   string   `json:"error"`
}

// Turn runs one exchange: assemble, store the user's message, call the
// model (streaming through onToken), run tools for a bounded number of
// rounds, store the reply, and append the turn to today's log. The user's
// message is stored before the model is called; a reply cut short by an
// error or Ctrl-C is stored too, marked, and returned with the error.
func (c *Chat) Turn(ctx context.Context, s *Session, message string, onToken func(string)) (res *TurnResult, err error) {
	notices := []string{}
	c.notices = &notices
	defer func() {
		c.notices = nil
		if res != nil {
			res.Notices = notices
		}
	}()
	if strings.TrimSpace(message) == "" {
		return nil, fmt.Errorf("%w: empty message", ErrInvalidInput)
	}
	t, err := c.prepare(ctx, s, message, c.AutoCompact)
	if err != nil {
		return nil, err
	}
	// A turn whose window moves evaluates the whole history again anyway:
	// a compaction now opens it with its summary at no further cost to the
	// cache (after the reply, it would change the next request's start).
	if c.AutoCompact && t.assembled.WindowMoved && c.autoCompact(ctx, s, t) {
		if err := c.refit(ctx, t); err != nil {
			return nil, err
		}
	}
	c.seal(t)
	res = &TurnResult{Session: s.Name, Layers: t.assembled.Layers, Cuts: t.assembled.Cuts, ToolCalls: []ToolResult{},
		PrefixReuse: t.assembled.PrefixReuse, RequestBytes: t.assembled.RequestBytes}
	for _, cut := range t.assembled.Cuts {
		c.notify("context cut to fit num_ctx " + fmt.Sprint(c.NumCtx) + ": " + cut)
	}
	// Stored under a context that Ctrl-C cannot cancel: the message must be
	// saved even when the reply is interrupted.
	store := context.WithoutCancel(ctx)
	userID, err := c.Sessions.AppendRequest(store, s, StoredMessage{Role: "user", Content: t.said, Context: t.context, Opening: t.assembled.Opening,
		RecallAt: t.recallAt, Recalled: t.assembled.RecallRefs()}, t.request, t.assembled.FoldBefore)
	if err != nil {
		return nil, err
	}

	msgs := append([]Message(nil), t.assembled.Messages...)
	var final Reply
	for round := 0; ; round++ {
		req := ChatRequest{Model: c.ModelName, Messages: msgs, Tools: t.specs, NumCtx: c.NumCtx,
			KeepAlive: c.KeepAlive, Unload: c.KeepAlive == 0, NumPredict: c.NumPredict}
		if round >= maxToolRounds {
			req.Tools = nil // the last rounds: the model must answer in words
		}
		reply, err := c.Model.Chat(ctx, req, onToken)
		if round == 0 {
			res.PromptEvalCount, res.PromptEvalDuration = reply.PromptEvalCount, reply.PromptEvalDuration.Nanoseconds()
			c.calibrate(store, t, reply.PromptEvalCount)
		}
		res.EvalCount += reply.EvalCount
		if err != nil {
			status := StatusError
			if errors.Is(err, context.Canceled) {
				status = StatusInterrupted
			}
			res.Reply, res.Interrupted = reply.Content, true
			if _, serr := c.Sessions.Append(store, s, StoredMessage{Role: "assistant", Content: reply.Content, Status: status, EvalCount: res.EvalCount}); serr != nil {
				return res, errors.Join(err, serr)
			}
			return res, err
		}
		if len(reply.ToolCalls) > 0 && req.Tools == nil {
			// Offered no tools, the model still asked for some (a template
			// that renders them anyway, or a confused model). They are not
			// run; the user is told, and a model that said nothing in
			// words is asked once more, plainly, to answer.
			c.notify(fmt.Sprintf("the model asked for %d tool call(s) after its last allowed round (%s); they were not run",
				len(reply.ToolCalls), toolCallNames(reply.ToolCalls)))
			if strings.TrimSpace(reply.Content) == "" && round == maxToolRounds {
				// A user-role note, not a system message: a system message
				// anywhere would be printed at the top of the prompt by
				// llama3.x and qwen2.x and the whole request evaluated again.
				msgs = append(msgs, Message{Role: "user", Content: noMoreToolsNote})
				continue
			}
			if strings.TrimSpace(reply.Content) == "" {
				c.notify("the model gave no answer in words")
			}
		}
		if len(reply.ToolCalls) == 0 || req.Tools == nil {
			final = reply
			break
		}
		if _, err := c.Sessions.Append(store, s, StoredMessage{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls}); err != nil {
			return res, err
		}
		msgs = append(msgs, Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
		for _, call := range reply.ToolCalls {
			tr := c.runTool(ctx, t, call)
			res.ToolCalls = append(res.ToolCalls, tr)
			if _, err := c.Sessions.Append(store, s, StoredMessage{Role: "tool", ToolName: call.Name, Content: tr.Result}); err != nil {
				return res, err
			}
			msgs = append(msgs, Message{Role: "tool", ToolName: call.Name, Content: tr.Result})
		}
	}
	res.Reply = final.Content
	kept := c.redact("reply", final.Content) // for state.db and the log alike
	// Logged first, so that where is stored with the reply, in its commit.
	var span LogSpan
	if !c.NoLog {
		var lerr error
		if span, lerr = c.logTurn(t, kept); lerr != nil {
			c.notify("turn not logged: " + lerr.Error())
		}
	}
	logged := span.Path != ""
	if _, err := c.Sessions.AppendReply(store, s, StoredMessage{Role: "assistant", Content: kept,
		PromptEvalCount: res.PromptEvalCount, EvalCount: res.EvalCount}, userID, span); err != nil {
		return res, err
	}
	if c.NumCtx > 0 && res.PromptEvalCount >= c.NumCtx {
		c.notify(fmt.Sprintf("the model counted %d prompt tokens, the whole num_ctx %d: it may have dropped the front of the prompt", res.PromptEvalCount, c.NumCtx))
	}
	if c.Memory != nil && (logged || len(res.ToolCalls) > 0) {
		c.Memory.Wrote()
	}
	return res, nil
}

// calibrate records how many characters the model counts per token, from
// the first request of a turn.
func (c *Chat) calibrate(ctx context.Context, t *turn, promptEvalCount int) {
	chars := t.assembled.Tools.BuiltinChars + t.assembled.Tools.MCPChars // the tool list is counted too
	for _, m := range t.assembled.Messages {
		chars += len([]rune(m.Content))
	}
	// A ratio that moved by under 1% is not worth a commit on every turn.
	if r, ok := window.Calibrate(t.cpt, chars, promptEvalCount); ok && math.Abs(r-t.cpt) > 0.01*t.cpt {
		if err := c.Sessions.SetCharsPerToken(ctx, c.ModelName, r); err != nil {
			c.notify("calibration not saved: " + err.Error())
		}
	}
}

// noMoreToolsNote asks a model that wants yet more tools to answer; it is
// the program speaking, and says so.
const noMoreToolsNote = "[from the agent program, not the user] No more tools can run in this turn. Answer the user now, in words, with what you have."

func toolCallNames(calls []ToolCall) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// logTurn appends a finished exchange to today's log so conversations become
// searchable memory, under a "### HH:MM · session NAME" heading, and says
// where it went (stored with the turn: compaction and recall find it there);
// the message (t.said) and reply come redacted.
func (c *Chat) logTurn(t *turn, reply string) (LogSpan, error) {
	who := t.agentName
	if who == "" {
		who = "Assistant"
	}
	who = c.redact("name", who)
	heading := t.now.Format("15:04") + memory.TurnHeadingMark + t.session.Name
	res, err := memory.AppendRedactedLogEntry(c.WS.Home, t.now, heading, memory.TurnEntry(t.said, who, reply))
	if err != nil {
		return LogSpan{}, err
	}
	return LogSpan{Path: res.Path, Start: res.StartLine, End: res.EndLine}, nil
}
