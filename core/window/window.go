// Package window fits one turn into the model's context: the fixed layers,
// the window over the session's stored messages (which exchanges it keeps,
// in blocks, and which it folds to their time), the compaction summary's
// room, and the recalled passages that fit beside them, each fenced once.
// It is pure: what a turn gathers (core's Chat.prepare) comes in as an
// Input, the request's messages and what was cut go out as an Assembled,
// and what a stored message carries (its context, where its recalled
// passages begin and which they were, where its turn was logged) is read
// from values stored with it, never from its rendered text.
package window

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"agent/core/llm"
	"agent/prompts"
)

// Message is a request's message (core/llm).
type Message = llm.Message

// ErrContextTooSmall means the layers that are never dropped (fixed prompt,
// SOUL.md, profile) and the new message do not fit the model's context.
var ErrContextTooSmall = errors.New("context too small")

// SummaryShare is the room a compaction summary has at the start of the
// window, of what the fixed layers leave: the newest lines are kept within
// it. With recall's quarter, the recent turns keep 60% of the window.
const SummaryShare = 0.15

// Layer names, in the order they are sent.
const (
	LayerSystem  = "system"
	LayerSoul    = "soul"
	LayerProfile = "profile"
	LayerSummary = "summary"
	LayerMemory  = "memory"
	LayerHistory = "history"
	LayerMessage = "message"
)

// Layer describes one part of the assembled context: where it came from, how
// big it is, and what was cut from it to fit.
type Layer struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Tokens  int    `json:"tokens"` // estimated
	Chars   int    `json:"chars"`
	Items   int    `json:"items,omitempty"`   // hits or messages included
	Dropped int    `json:"dropped,omitempty"` // hits or messages cut to fit
	// Folded is, for the history, how many of its messages replay their
	// context folded to its time (its recalled passages left out; they
	// stay recallable).
	Folded    int    `json:"folded,omitempty"`
	Truncated string `json:"truncated,omitempty"`
}

// Assembled is the exact request context for one turn.
type Assembled struct {
	Mode          string    `json:"mode"` // "normal" or "bootstrap"
	Prompt        string    `json:"prompt"`
	PromptHash    string    `json:"prompt_sha256"`
	NumCtx        int       `json:"num_ctx"`
	Reserve       int       `json:"reply_reserve"`
	Total         int       `json:"tokens"` // estimated, all layers
	CharsPerToken float64   `json:"chars_per_token"`
	Layers        []Layer   `json:"layers"`
	Cuts          []string  `json:"cuts"`
	Messages      []Message `json:"messages"`
	// Placement is where recall goes: PlacementExchange or PlacementLayer.
	Placement string `json:"recall_placement"`
	// Context is the turn's context (time and recall): sent at the top of
	// the user's message and stored with it (its own column, apart from the
	// user's words) so later requests replay the same bytes.
	Context string `json:"-"`
	// Opening says Context carries the session's opening (sessionOpening):
	// stored with the message, so later turns know it without reading it back.
	Opening bool `json:"-"`
	// RecallAt is the byte of Context at which its recalled passages begin
	// (0: none): a window that folds the message replays Context[:RecallAt].
	// Stored with the message, as Recalled's references are (RecallRefs).
	RecallAt int `json:"-"`
	// PrefixReuse is how many bytes of this request's messages the previous
	// request of the session began with too (what the model can keep
	// evaluated), of RequestBytes; 0 for a session's first request.
	PrefixReuse  int `json:"prefix_reuse"`
	RequestBytes int `json:"request_bytes"`
	// refs are Recalled's references (RecallRefs), hashed when recall
	// checked them against the window.
	refs []RecallRef
	// Recalled lists the passages the new message's context carries, each
	// with its source and the sub-query that found it.
	Recalled []Recalled `json:"recalled"`
	// Identity is the identity section's size against its budget.
	Identity IdentitySize `json:"identity"`
	// WindowStart is the stored ID of the first user message the window
	// carries (math.MaxInt64 when it carries none): what comes before it
	// was dropped, and is what a compaction summarises.
	WindowStart int64 `json:"-"`
	// HistoryAt is the index in Messages of the first replayed stored
	// message: from there to the new message, all came from state.db,
	// where they are kept redacted.
	HistoryAt int `json:"-"`
	// FoldBefore is the session's fold point with this request: stored
	// with the message (Sessions.AppendRequest), it never moves back.
	FoldBefore int64 `json:"-"`
	// WindowMoved says the window starts later than it did for the
	// session's previous message: the turn re-evaluates the whole history
	// (a fold, which changes only the window's end, is not a move).
	WindowMoved bool `json:"-"`
	// SummaryRoom is the room, in tokens, a compaction summary has at the
	// start of the window: a compaction keeps the summary within it.
	SummaryRoom int `json:"-"`
	// Tools is the tool list sent with the request, by size.
	Tools ToolsSize `json:"tools"`
}

// ToolsSize is the tool list a request carries: how many tools and how
// many characters of JSON (ToolsChars), built-in and from integrations.
// A llama3.x template prints the whole list in the last user message, so
// it is evaluated again every turn.
type ToolsSize struct {
	Builtin      int `json:"builtin"`
	BuiltinChars int `json:"builtin_chars"`
	MCP          int `json:"mcp"`
	MCPChars     int `json:"mcp_chars"`
}

// IdentitySize is the identity section (the end of the system layer, from
// "## Now") as its budget counts it: tokens by the default estimator, which
// no calibration moves, so the figure depends on the section alone.
type IdentitySize struct {
	Tokens int `json:"tokens"`
	Chars  int `json:"chars"`
	Budget int `json:"budget"`
}

// Recall placements: where the recalled memory for a message goes.
const (
	// PlacementExchange (the default) sends a message's recall, with the
	// turn's time, at the top of the user message itself and stores both
	// with the exchange, so later requests replay the same bytes (until the
	// window folds the recall away, fitHistory) and the conversation stays
	// a prefix the model can keep cached. Never
	// a system message: Ollama joins every system message into the
	// template's .System, which llama3.x and qwen2.x print once at the very
	// top, so a context message anywhere would change the request's first
	// block every turn (docs/decisions.md, the request layout).
	PlacementExchange = "exchange"
	// PlacementLayer is the literal layer order of the design: the new
	// message's recall as one layer (a user-role message, for the same
	// reason) before all history. Past exchanges' recall is not replayed;
	// the prefix breaks at the history each turn.
	PlacementLayer = "layer"
)

// Input is everything a turn's context is built from; gathering it
// (database, files, index) is separate from fitting it, which is pure.
type Input struct {
	Prompt        prompts.Prompt
	Bootstrap     bool
	Identity      string   // the identity section, appended to the fixed prompt
	IdentityCuts  []string // what the identity section's sources shortened
	Soul          string
	SoulSource    string
	Profile       string
	ProfileSource string
	Recalled      []Recalled
	// Fenced is Fence of each of Recalled, by whoever gathered them, once
	// a turn (fenced here when it does not match Recalled).
	Fenced []Fenced
	// Joined keeps the past exchanges' user messages as replayed, joined
	// once for a turn that fits twice (a refit after compaction); nil
	// joins at every fit. Count, when set, is told of each join.
	Joined map[Join]string
	Count  func(what string)
	// OwnTurns are where this session's turns were logged, in the logs the
	// hits come from: a hit there is one of the session's own turns.
	OwnTurns    []LogSpan
	History     []StoredMessage
	FoldBefore  int64 // the session's fold point (Sessions.LastRequest)
	SessionName string
	// Summary is the session's compaction summary, as sent (empty: none);
	// SummarySource names it for the layer.
	Summary       string
	SummarySource string
	// ReserveSummary keeps the summary's room even without one: the window
	// a compaction summarises is the one its summary will open.
	ReserveSummary bool
	Note           string // this turn's runtime note (the time), sent with the message
	// Opening is the session's opening (sessionOpening): sent in this
	// turn's context, after the note, unless the window replays a message
	// that carries it already.
	Opening string
	Message string
	// ToolsChars is the built-in tool list (ToolsChars), counted in the
	// budget with the fixed layers. Integrations' tools are not (yet): how
	// many a user configures is theirs, and a chat must not refuse to start
	// over them; agent prompt --json and agent mcp tools show their size.
	ToolsChars int
	Placement  string // PlacementExchange (default when empty) or PlacementLayer
	NumCtx     int
	ModelCtx   int // the model's own context length, 0 when unknown
	// IdentityBudget is the identity section's budget, in tokens, for
	// Assembled.Identity.
	IdentityBudget int
	Reserve        int
	CharsPerToken  float64
}

// Recall always has this share of what the fixed layers leave (more when
// the history leaves more), so a long conversation keeps its recent turns
// and its memory: a quarter, since in a long session recall is also what
// brings back the turns the window dropped (at 15%, a session's questions
// found their evidence less often than a new session's: 0.619 against
// 0.658 on LoCoMo, scripts/locomo-continuity.sh; at 25%, 0.658 both).
const (
	recallShare     = 0.25
	maxRecallTokens = 2000
)

// messageShare is the room the new message (with its time) has before it
// takes from the history's: a message up to it leaves the window where it
// was, so that a long message followed by a short one does not move it
// forward and back.
const messageShare = 0.05

// blockRatio is the characters per token used to size the window's blocks:
// the calibrated ratio floored to a coarse step (1, 2 or 3), so that where
// the blocks begin moves only if the model's ratio crosses a step, not with
// each turn's calibration, while a block stays under half the history
// budget even for a model of one character a token.
func blockRatio(cpt float64) float64 {
	switch {
	case cpt < 2:
		return 1
	case cpt < 3:
		return 2
	}
	return 3
}

// Assemble fits the layers into the budget. Layers 1–3 and the new message
// are never cut: if they alone do not fit, it fails and says which is large.
// Recall always has its share; history loses its oldest blocks; recall
// loses its lowest-ranked hits. Every cut is recorded.
//
// Everything that varies from turn to turn (the time, the recall) travels
// in the turn's context message just before the new message, and every
// choice that shapes the earlier messages (the history budget, where its
// blocks begin) depends only on what the session holds, so request N+1
// begins with request N and its reply (see docs/decisions.md, the cache).
func Assemble(in Input) (*Assembled, error) {
	est := newEstimator(in.CharsPerToken)
	placement := in.Placement
	if placement == "" {
		placement = PlacementExchange
	}
	a := &Assembled{
		Mode: "normal", Prompt: in.Prompt.Name, PromptHash: in.Prompt.Hash, Placement: placement,
		NumCtx: in.NumCtx, Reserve: in.Reserve, CharsPerToken: est.charsPerToken,
		Cuts:     append([]string{}, in.IdentityCuts...),
		Identity: IdentitySize{Tokens: newEstimator(0).tokens(in.Identity), Chars: utf8.RuneCountInString(in.Identity), Budget: in.IdentityBudget},
	}
	if in.Bootstrap {
		a.Mode = "bootstrap"
	}
	budget := in.NumCtx - in.Reserve

	system := Message{Role: "system", Content: strings.TrimRight(in.Prompt.Text, "\n") + "\n\n" + in.Identity}
	soulMsg := Message{Role: "system", Content: "# Your persona (SOUL.md)\n\n" + in.Soul}
	profileMsg := Message{Role: "system", Content: in.Profile}
	userMsg := Message{Role: "user", Content: in.Message}

	fixed := []struct {
		layer Layer
		msg   Message
	}{
		{Layer{Name: LayerSystem, Source: "prompts/" + in.Prompt.Name + ".md sha256:" + in.Prompt.Hash[:12] + " + identity"}, system},
		{Layer{Name: LayerSoul, Source: in.SoulSource}, soulMsg},
		{Layer{Name: LayerProfile, Source: in.ProfileSource}, profileMsg},
	}
	// The built-in tool list is printed into the prompt too (at the top, or
	// in the last user message): room is kept for it as for the fixed
	// layers.
	toolTokens := int(math.Ceil(float64(in.ToolsChars) / est.charsPerToken))
	fixedTokens := toolTokens
	for i := range fixed {
		fixed[i].layer.Tokens = est.message(fixed[i].msg)
		fixed[i].layer.Chars = len(fixed[i].msg.Content)
		fixedTokens += fixed[i].layer.Tokens
	}
	msgTokens := est.message(userMsg)
	// The opening is counted whether or not this turn carries it: it is
	// short, and the history's share must not change with it.
	noteTokens := est.message(Message{Content: turnContext(withOpening(in.Note, in.Opening), "")})
	summaryMsg := Message{Role: "user", Content: in.Summary}
	summaryLayer := Layer{Name: LayerSummary, Source: in.SummarySource, Tokens: est.message(summaryMsg), Chars: len(in.Summary), Items: 1}
	if used := fixedTokens + msgTokens + noteTokens; used > budget {
		var parts []string
		for _, f := range fixed {
			parts = append(parts, fmt.Sprintf("%s %d", f.layer.Name, f.layer.Tokens))
		}
		if toolTokens > 0 {
			parts = append(parts, fmt.Sprintf("tools %d", toolTokens))
		}
		parts = append(parts, fmt.Sprintf("message %d", msgTokens+noteTokens))
		fix := "raise --num-ctx, shorten SOUL.md or the message"
		switch {
		case in.ModelCtx > 0 && in.NumCtx >= in.ModelCtx:
			fix = fmt.Sprintf("the model's context length is %d, so shorten SOUL.md or the message, or use a model with a longer context", in.ModelCtx)
		case in.ModelCtx > 0:
			fix = fmt.Sprintf("raise --num-ctx (up to %d, the model's context length), shorten SOUL.md or the message", in.ModelCtx)
		}
		return nil, fmt.Errorf("%w: the layers that are never dropped need ~%d tokens (%s) but num_ctx %d leaves %d after the %d-token reply reserve; %s",
			ErrContextTooSmall, used, strings.Join(parts, ", "), in.NumCtx, budget, in.Reserve, fix)
	}
	// What the fixed layers leave is the same every turn of a session; the
	// shares below are taken from it, not from what this message leaves: a
	// message within its share does not move the window.
	avail := budget - fixedTokens
	recallCap := min(int(float64(avail)*recallShare), maxRecallTokens)
	messageRoom := int(float64(avail) * messageShare)
	histBudget := avail - recallCap - max(msgTokens+noteTokens, messageRoom)
	// The window's open part has a recall's room at least, kept spare
	// when the window's start is chosen (fitHistory); the layer placement
	// replays no context.
	openRoom := recallCap
	if placement != PlacementExchange {
		openRoom = 0
	}
	// A compaction summary opens the window and takes its room from the
	// history's: a fixed share, whatever the summary's size within it, so
	// that a compaction that adds lines does not itself move the window
	// (and so cause the next one). One that no longer fits (a smaller
	// num_ctx) is left out.
	a.SummaryRoom = int(float64(avail) * SummaryShare)
	// Blocks are half of what the window holds folded when a summary takes
	// its room, in words: fixed shares only, so they stay put all session.
	blockChars := int(float64(avail-recallCap-messageRoom-openRoom-a.SummaryRoom) / 2 * blockRatio(est.charsPerToken))
	withSummary := in.Summary != "" && summaryLayer.Tokens <= histBudget-openRoom
	switch {
	case withSummary:
		histBudget -= max(summaryLayer.Tokens, a.SummaryRoom)
	case in.ReserveSummary: // the room, not a summary left out for its size
		histBudget -= a.SummaryRoom
	}
	if !withSummary && in.Summary != "" {
		a.Cuts = append(a.Cuts, fmt.Sprintf("summary: left out, ~%d tokens do not fit the history's ~%d", summaryLayer.Tokens, histBudget-openRoom))
		summaryLayer.Tokens = 0
	}

	// The new message's recall comes before older passages: the window's
	// open part keeps them only while what its hits want fits beside them
	// (a recall's share at least, all the hits at most).
	// Each hit is fenced once: what all of them would take decides the
	// window's open part, and fitRecall keeps those that fit.
	fenced := in.Fenced
	if len(fenced) != len(in.Recalled) {
		fenced = make([]Fenced, len(in.Recalled))
		for i, h := range in.Recalled {
			fenced[i] = Fence(h)
		}
	}
	openLimit := avail - max(msgTokens+noteTokens, messageRoom) - max(recallWant(est, fenced), recallCap)
	if withSummary {
		openLimit -= summaryLayer.Tokens
	}
	w := fitHistory(historyFit{est: est, stored: in.History, foldBefore: in.FoldBefore, budget: histBudget, openRoom: openRoom, openLimit: openLimit,
		blockChars: blockChars, session: in.SessionName, placement: placement, join: joiner(in.Joined, in.Count)})
	histLayer := w.layer
	a.WindowStart, a.FoldBefore, a.WindowMoved = w.start, w.foldBefore, w.moved
	recallBudget := avail - msgTokens - noteTokens - histLayer.Tokens - summaryLayer.Tokens // at least recallCap
	recalled, kept, keptRefs, memLayer := fitRecall(est, in.Recalled, fenced, windowCarries(in.History, w, placement), in.OwnTurns, recallBudget)
	a.Recalled, a.refs = kept, keptRefs
	note := in.Note
	if in.Opening != "" && (placement != PlacementExchange || !w.opening) {
		note, a.Opening = withOpening(in.Note, in.Opening), true
	}
	a.Context = turnContext(note, recalled)
	if recalled != "" {
		a.RecallAt = len(note)
	}
	memLayer.Tokens = est.message(Message{Content: a.Context})
	memLayer.Chars = len(a.Context)

	a.Layers = append(a.Layers, fixed[0].layer, fixed[1].layer, fixed[2].layer)
	a.Messages = append(make([]Message, 0, 6+len(w.msgs)), system, soulMsg, profileMsg)
	if withSummary {
		a.Layers = append(a.Layers, summaryLayer)
		a.Messages = append(a.Messages, summaryMsg)
	}
	if placement == PlacementLayer {
		a.Layers = append(a.Layers, memLayer, histLayer)
		a.Messages = append(a.Messages, Message{Role: "user", Content: a.Context})
		a.HistoryAt = len(a.Messages)
		a.Messages = append(a.Messages, w.msgs...)
	} else {
		a.Layers = append(a.Layers, histLayer, memLayer)
		a.HistoryAt = len(a.Messages)
		a.Messages = append(a.Messages, w.msgs...)
		userMsg.Content = WithContext(a.Context, in.Message)
	}
	a.Layers = append(a.Layers, Layer{Name: LayerMessage, Source: "user", Tokens: msgTokens, Chars: len(in.Message)})
	a.Messages = append(a.Messages, userMsg)
	for _, l := range a.Layers {
		a.Total += l.Tokens
		if l.Truncated != "" {
			a.Cuts = append(a.Cuts, l.Name+": "+l.Truncated)
		}
	}
	return a, nil
}

// turnContext is what a new message is sent with (and stored with): the
// time it was sent, then its recalled memory. Short, since every exchange
// in the window carries one.
func turnContext(note, recalled string) string {
	if recalled == "" {
		return note
	}
	return note + "\n\n" + recalled
}

// withOpening is a turn's note followed by the session's opening.
func withOpening(note, opening string) string {
	if opening == "" {
		return note
	}
	return note + "\n\n" + strings.TrimRight(opening, "\n")
}

// WithContext is a user's message as sent with the exchange placement:
// its context (the bracketed time, then the fenced recall) at the top, a
// blank line, then the user's own words. The two are stored apart and
// joined here, the same way for the new message and every replayed one,
// so a message is the same bytes in later requests. A message stored
// before this layout (its context then a system message of its own) is
// replayed the same way: the columns are unchanged, only the join is new,
// so an old session costs one uncached turn and is a prefix again after.
func WithContext(context, words string) string {
	if context == "" {
		return words
	}
	return strings.TrimRight(context, "\n") + "\n\n" + words
}

// RequestText serializes a request's messages for comparing requests: what
// one shares with the last is what the model need not evaluate again.
func RequestText(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteByte(0)
		b.WriteString(m.Content)
		b.WriteByte(0)
	}
	return b.String()
}

// SharedPrefix is the length in bytes of the common prefix of a and b.
func SharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
