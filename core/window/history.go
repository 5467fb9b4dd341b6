package window

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"agent/core/llm"
)

// exchange is one user message with what goes with it in the window: its
// stored context and the replies that followed. (Recall sees what the
// window holds from the stored messages themselves: windowCarries.)
type exchange struct {
	id int64 // the user's message, as stored
	// words is the user's message; context its stored context, as replayed
	// (none with the layer placement); folded that context folded to its
	// time (foldContext).
	words, context, folded string
	// (The message as replayed, WithContext, is joined only for the
	// exchanges the window keeps; the others are only measured: joinedRunes.)
	opening bool // its context carries the session's opening
	replies []Message
	// before is where the exchange begins in the session: the
	// transcriptChars of everything before it; msgsBefore how many carried
	// messages come before it.
	before, msgsBefore int64
}

// appendTo appends the exchange as replayed to msgs: with its context in
// full, or folded, joined by join.
func (e exchange) appendTo(msgs []Message, full bool, join func(exchange, bool) string) []Message {
	return append(append(msgs, Message{Role: "user", Content: join(e, full)}), e.replies...)
}

// Join names one replayed user message: the stored message's id and whether
// its context is in full or folded.
type Join struct {
	ID   int64
	Full bool
}

// joiner joins an exchange's user message as replayed (WithContext), once
// per form a turn: what it joined is kept in joined (when not nil) for a
// turn that fits again (a refit after compaction), and count (when not
// nil) is told of each join.
func joiner(joined map[Join]string, count func(string)) func(exchange, bool) string {
	return func(e exchange, full bool) string {
		k := Join{e.id, full}
		if s, ok := joined[k]; ok {
			return s
		}
		ctx := e.folded
		if full {
			ctx = e.context
		}
		s := WithContext(ctx, e.words)
		if count != nil {
			count(fmt.Sprintf("join %d %v", e.id, full))
		}
		if joined != nil {
			joined[k] = s
		}
		return s
	}
}

// joinedRunes is how many runes WithContext(contextText, words) has,
// without joining them: context is the runes of contextText without its
// trailing newlines, words those of the words.
func joinedRunes(context, words int, contextText string) int {
	if contextText == "" {
		return words
	}
	return context + 2 + words
}

// exchanges groups a session's transcript for the window. Tool traffic is
// left out (its effect is in the replies).
// stored may be a session's tail (Sessions.Tail): positions count on from
// its first message's CharsBefore.
func exchanges(stored []StoredMessage, placement string) (out []exchange, msgs int64) {
	var at int64
	if len(stored) > 0 {
		at, msgs = stored[0].CharsBefore, stored[0].MsgsBefore
	}
	for _, m := range stored {
		before, msgsBefore := at, msgs
		at += TranscriptChars(m)
		if Carried(m) {
			msgs++
		}
		switch {
		case m.Role == "user":
			e := exchange{id: m.ID, words: m.Content, before: before, msgsBefore: msgsBefore}
			if placement == PlacementExchange {
				e.context, e.folded, e.opening = m.Context, m.Folded(), m.Opening
			}
			out = append(out, e)
		case m.Role == "assistant" && m.Content != "" && len(out) > 0:
			e := &out[len(out)-1]
			e.replies = append(e.replies, Message{Role: "assistant", Content: m.Content + statusMark(m.Status)})
		}
	}
	return out, msgs
}

// Folded is a stored message's context as a window that has folded it
// replays it: its time, without the recalled passages (fitHistory), which
// begin at RecallAt, as stored.
func (m StoredMessage) Folded() string {
	if m.RecallAt > 0 && m.RecallAt <= len(m.Context) {
		return m.Context[:m.RecallAt]
	}
	return m.Context
}

// statusMark tells the model a reply it reads back did not finish.
func statusMark(status string) string {
	switch status {
	case StatusInterrupted:
		return "\n[reply interrupted by the user]"
	case StatusError:
		return "\n[reply cut off by an error]"
	}
	return ""
}

// window is the history a request replays.
type window struct {
	msgs  []Message
	layer Layer
	// start is the stored ID of the first exchange kept, open the first
	// whose context is replayed in full (math.MaxInt64: none).
	start, open int64
	// foldBefore is the session's fold point after this request: the user
	// messages below it replay their time only.
	foldBefore int64
	// moved says the window starts later than it did before the
	// session's last exchange.
	moved bool
	// opening says a replayed message carries the session's opening (a
	// fold keeps it: it comes before the recalled passages).
	opening bool
}

// historyFit is what fitHistory fits: the session's stored tail and
// where it stands, the room it has, and how a replayed exchange is joined.
type historyFit struct {
	est        estimator
	stored     []StoredMessage // the session's tail (Tail)
	foldBefore int64           // the session's fold point
	budget     int             // the history layer's tokens at most
	openRoom   int             // kept spare for the open part when the start is chosen
	openLimit  int             // what the new message's recall leaves the open part
	blockChars int             // the window moves in blocks of about this many chars of words
	session    string          // the session's name, "" for a new one
	placement  string
	join       func(exchange, bool) string
}

// fitHistory keeps the most recent exchanges that fit, whole.
//
// An exchange's stored context (its time and the passages recalled for
// it) is replayed byte for byte while the exchange is in the window's open
// part; older ones are folded to their time. The open part has the room
// the window's folded exchanges and the new message's recall leave
// (openLimit; openRoom at least, kept spare when the window's start is
// chosen): while there is room nothing folds, and when it runs out every
// exchange not yet folded folds at once, the session keeps where (the
// fold point, foldBefore), and the open part starts empty again. So a fold
// happens only when the room runs out, and the request it changes is short
// after the change (the folded exchanges and the new message): a context
// is a quarter of what the fixed layers leave, and replaying every one in
// full would leave a small model's window one or two exchanges, moved on
// every turn. A folded passage is recallable again (windowCarries), and
// since a fold is kept, a window that moves never replays it again.
// Between folds each request extends the last.
//
// The window does not slide one exchange per turn either: the transcript
// is divided, from its start, into blocks of about blockChars of words (a
// block begins at the first exchange past each multiple of blockChars of
// the session's transcript, counted by transcriptChars), and the window
// begins at the earliest block from which everything, folded, fits with
// openRoom to spare. stored may be only the session's tail: an exchange is
// known to begin a block only when the one before it is there too (or it
// is the session's first), and Tail returns one exchange more than any
// window can hold. Block boundaries depend only on earlier exchanges, so
// the window's start stays put for many turns and then jumps a whole
// block. If not even the last block fits (exchanges large against the
// budget), the same is tried with blocks of half the size, and so on:
// those boundaries include the coarser ones, so the window still moves in
// steps.
func fitHistory(f historyFit) window {
	w := window{layer: Layer{Name: LayerHistory, Source: "session " + f.session}, start: math.MaxInt64, open: math.MaxInt64}
	if f.session == "" {
		w.layer.Source = "new session"
	}
	ex, total := exchanges(f.stored, f.placement)
	folded := make([]int, len(ex)+1) // folded[i]: exchanges i.. to the end, folded
	extra := make([]int, len(ex))    // what exchange i's full context adds
	for i := len(ex) - 1; i >= 0; i-- {
		words := utf8.RuneCountInString(ex[i].words)
		fo := strings.TrimRight(ex[i].folded, "\n")
		user := f.est.runes(joinedRunes(utf8.RuneCountInString(fo), words, ex[i].folded)) + messageOverhead
		folded[i] = folded[i+1] + user + tokensOf(f.est, ex[i].replies)
		if len(ex[i].context) != len(ex[i].folded) { // folded is a prefix of context
			c := strings.TrimRight(ex[i].context, "\n")
			extra[i] = f.est.runes(joinedRunes(utf8.RuneCountInString(c), words, ex[i].context)) + messageOverhead - user
		}
	}
	// startOf is where the window over the first n exchanges begins (n: an
	// empty window).
	startOf := func(n int) int {
		for size := int64(max(f.blockChars, 1)); size >= 1; size /= 2 {
			for i := range n {
				first := i == 0 && ex[i].before == 0
				if (first || i > 0 && ex[i].before/size > ex[i-1].before/size) && folded[i]-folded[n]+f.openRoom <= f.budget {
					return i
				}
			}
		}
		return n
	}
	start := startOf(len(ex))
	if start < len(ex) {
		w.start = ex[start].id
	}
	if n := len(ex) - 1; n > 0 {
		// the window the session held before its last exchange
		prev := int64(math.MaxInt64)
		if i := startOf(n); i < n {
			prev = ex[i].id
		}
		w.moved = prev != w.start
	}
	// The open part is what the session has not folded yet; when it would
	// take the window past its budget, or past openLimit (what the new
	// message's recall leaves), all of it folds, for good (the session
	// keeps foldBefore: a window that moves, and so has room again, must
	// not replay a passage a later message has recalled anew).
	open, room := start, 0
	for open < len(ex) && ex[open].id < f.foldBefore {
		open++
	}
	for i := open; i < len(ex); i++ {
		room += extra[i]
	}
	w.foldBefore = f.foldBefore
	if open < len(ex) && folded[start]+room > min(f.budget, f.openLimit) {
		open, room = len(ex), 0
		w.foldBefore = ex[len(ex)-1].id + 1
	}
	w.layer.Tokens = folded[start] + room
	n := 0
	for i := start; i < len(ex); i++ {
		n += 1 + len(ex[i].replies)
	}
	w.msgs = make([]Message, 0, n)
	for i := start; i < len(ex); i++ {
		w.msgs = ex[i].appendTo(w.msgs, i >= open, f.join)
		w.opening = w.opening || ex[i].opening
		if i < open && extra[i] > 0 {
			w.layer.Folded++
		}
	}
	if open < len(ex) {
		w.open = ex[open].id
	}
	// What was dropped counts the whole session, not only the tail read.
	dropped := total
	if start < len(ex) {
		dropped = ex[start].msgsBefore
	}
	w.layer.Items = len(w.msgs)
	w.layer.Dropped = int(dropped)
	for _, m := range w.msgs {
		w.layer.Chars += len(m.Content)
	}
	if dropped > 0 {
		w.layer.Truncated = fmt.Sprintf("dropped the %d oldest of %d messages to fit (the window moves in blocks; dropped turns stay recallable from the log)", dropped, total)
	}
	return w
}

func tokensOf(est estimator, msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += est.message(m)
	}
	return n
}

// StoredMessage is one row of a session's transcript.
type StoredMessage struct {
	ID      int64  `json:"id"`
	Role    string `json:"role"`
	Content string `json:"content"`
	Status  string `json:"status"` // complete, interrupted, error
	// Context is what a user's message was sent with (its time, recalled
	// memory): replayed before it in later requests.
	Context string `json:"context"`
	// Opening says that Context holds the session's opening
	// (sessionOpening), as assemble put it there.
	Opening bool `json:"-"`
	// RecallAt and Recalled are where in Context its recalled passages
	// begin (0: none) and which they are, as assemble recorded them
	// (Assembled.RecallAt, RecallRefs; migration 0008).
	RecallAt int        `json:"-"`
	Recalled StoredRefs `json:"-"`
	// Logged is where a user message's turn was logged (Path "": not
	// logged); LogKnown is false for one stored before that was kept
	// (migration 0008).
	Logged          LogSpan        `json:"-"`
	LogKnown        bool           `json:"-"`
	ToolCalls       []llm.ToolCall `json:"tool_calls"` // assistant messages that called tools
	ToolName        string         `json:"tool_name"`  // tool results
	PromptEvalCount int            `json:"prompt_eval_count"`
	EvalCount       int            `json:"eval_count"`
	CreatedAt       time.Time      `json:"created_at"`
	// CharsBefore and MsgsBefore are where the message stands in its
	// session: the TranscriptChars of every message before it, and how
	// many before it are carried (migration 0004 keeps both).
	CharsBefore int64 `json:"-"`
	MsgsBefore  int64 `json:"-"`
}

// Carried reports whether the history window can carry a message: a
// user's, or an assistant's with words (the same test in SQL in migration
// 0004).
func Carried(m StoredMessage) bool {
	return m.Role == "user" || m.Role == "assistant" && m.Content != ""
}

// TranscriptChars is what a message adds to its session's transcript as
// the history window measures it (CharsBefore; the same sum in SQL in
// migration 0005): a user's or an assistant's words. A user message's
// stored context does not count: the window folds all but its newest
// contexts (fitHistory), so the words are what decide how much of a
// session it holds; tool traffic, which the window leaves out, nothing.
func TranscriptChars(m StoredMessage) int64 {
	if m.Role == "user" || m.Role == "assistant" {
		return int64(len(m.Content))
	}
	return 0
}

// MarshalJSON writes the message with tool_calls always a list and its
// timestamp as every command writes one (core.JSONTime).
func (m StoredMessage) MarshalJSON() ([]byte, error) {
	type plain StoredMessage
	if m.ToolCalls == nil {
		m.ToolCalls = []llm.ToolCall{}
	}
	return json.Marshal(struct {
		plain
		CreatedAt string `json:"created_at"`
	}{plain(m), m.CreatedAt.UTC().Format(time.RFC3339)}) // as core.JSONTime
}

// LogSpan is where a turn was logged: lines Start (its heading) to End of
// a daily log.
type LogSpan struct {
	Path       string
	Start, End int
}

// holds reports whether a recalled passage is (part of) the logged turn.
func (l LogSpan) holds(h Recalled) bool {
	return l.Path != "" && l.Path == h.Path && h.StartLine <= l.End && h.EndLine >= l.Start
}

// Message status values.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusError       = "error"
)
