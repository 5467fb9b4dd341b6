package ollamatest

import "strings"

// Reply is one scripted answer to a POST /api/chat. The zero Reply is an
// empty, successful answer. Text is streamed first (in Chunks), then the
// tool calls; then either the final done:true chunk or, when one of the
// failure fields is set, that failure instead. Replies decode from JSON, so
// transcripts and the fakeollama command can script them in a file:
//
//	[{"text": "Hello there"},
//	 {"tool_calls": [{"name": "memory_search", "arguments": {"query": "trip"}}]},
//	 {"status": 500, "error": "boom"},
//	 {"text": "half a rep", "cut": true}]
type Reply struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`

	// Status, when non-zero, answers with that HTTP status and
	// {"error": Error} before anything is streamed.
	Status int `json:"status,omitempty"`
	// Error without Status is an {"error": ...} line in the middle of a
	// 200 stream, after Text: how Ollama reports a runner failure.
	Error string `json:"error,omitempty"`
	// Cut closes the connection after Text, without the final chunk.
	Cut bool `json:"cut,omitempty"`
	// Stall stops sending after Text and holds the connection open until
	// the client goes away (or the server closes). With no Text, not even
	// the response headers are sent, as when Ollama is loading a model.
	Stall bool `json:"stall,omitempty"`
	// Malformed sends a truncated JSON line after Text, then ends.
	Malformed bool `json:"malformed,omitempty"`

	// DoneReason overrides the final chunk's done_reason ("stop", or
	// "length" when num_predict cut the reply).
	DoneReason string `json:"done_reason,omitempty"`
	// PromptEvalCount overrides the computed count (see PromptTokens).
	PromptEvalCount int `json:"prompt_eval_count,omitempty"`

	// Hold, when set, keeps the whole answer back (not even the headers,
	// as while Ollama loads a model) until it is closed or the client goes
	// away: a test sees what the client shows while it waits, then lets
	// the first token through, with no sleep.
	Hold <-chan struct{} `json:"-"`
}

// ToolCall is a tool call the fake model makes.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Text is a successful reply streamed in several chunks.
func Text(s string) Reply { return Reply{Text: s} }

// CallTool is a reply that calls one tool.
func CallTool(name string, args map[string]any) Reply {
	return Reply{ToolCalls: []ToolCall{{Name: name, Arguments: args}}}
}

// HTTPError answers with an HTTP error status and Ollama's {"error": msg} body.
func HTTPError(status int, msg string) Reply { return Reply{Status: status, Error: msg} }

// StreamError streams partial, then an {"error": msg} line, as Ollama does
// when the runner fails mid-reply.
func StreamError(partial, msg string) Reply { return Reply{Text: partial, Error: msg} }

// Cut streams partial, then drops the connection.
func Cut(partial string) Reply { return Reply{Text: partial, Cut: true} }

// Stall streams partial, then sends nothing more.
func Stall(partial string) Reply { return Reply{Text: partial, Stall: true} }

// Malformed streams partial, then a line that is not valid JSON.
func Malformed(partial string) Reply { return Reply{Text: partial, Malformed: true} }

// Chunks is how the fake splits a reply's text into streamed fragments, the
// way a model emits tokens: one word per chunk with its leading spaces, long
// words in pieces of at most 8 runes. Joined, they give back the text.
func Chunks(text string) []string {
	var chunks []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			chunks = append(chunks, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range text {
		word := len(cur) > 0 && !isSpace(cur[len(cur)-1])
		if (isSpace(r) && word) || len(cur) == 8 {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return chunks
}

func isSpace(r rune) bool { return strings.ContainsRune(" \t\n", r) }
