// Package llm is what the chat loop says to and hears from a language
// model: messages, tool specs, one request, one reply, and the Model
// interface an adapter (core's Ollama) implements. Plain types only, so
// that the packages that build a request (core/window) need nothing else.
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Model is the one thing the chat loop needs from a language model.
type Model interface {
	// Chat streams one reply. onToken is called with each content fragment as it
	// arrives. It returns the complete reply (content, tool calls, counts) or an
	// error; on error or ctx cancel, the partial content so far is in Reply.Content.
	Chat(ctx context.Context, req ChatRequest, onToken func(string)) (Reply, error)
}

// Message is one entry of a conversation as the model sees it. Role is
// "system", "user", "assistant" or "tool"; a tool result names its tool.
type Message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	ToolName  string     `json:"tool_name,omitempty"`
}

// ToolCall is the model asking for one tool to be run.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// ToolSpec describes a tool the model may call; the adapter renders it as a
// JSON-schema function definition.
type ToolSpec struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Parameters  []ToolParam `json:"parameters"`
}

// ToolParam is one argument of a tool. Type is a JSON-schema type
// ("string", "integer", ...); Enum, when set, lists the allowed values;
// Items, for an array, is the JSON schema of its elements as given.
type ToolParam struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Required    bool     `json:"required"`
	Enum        []string `json:"enum,omitempty"`
	Items       any      `json:"items,omitempty"`
}

// ChatRequest is one call to the model. NumCtx and KeepAlive are always sent
// (zero means the adapter's documented fallback); NumPredict only when set.
type ChatRequest struct {
	Model      string
	Messages   []Message
	Tools      []ToolSpec
	NumCtx     int
	KeepAlive  time.Duration
	NumPredict int
	// Unload sends keep_alive 0 as Ollama means it: unload the model right
	// after the reply (a zero KeepAlive alone means the fallback).
	Unload bool
	// Format, when set, is a JSON schema the reply must fit (Ollama's
	// structured outputs); the reply's Content is then that JSON.
	Format json.RawMessage
}

// Reply is what the model answered. The counts are the model's own:
// PromptEvalCount is how many prompt tokens it evaluated, EvalCount how many
// it generated. DoneReason is "stop", "length", ... as Ollama reports it.
type Reply struct {
	Content         string
	ToolCalls       []ToolCall
	PromptEvalCount int
	EvalCount       int
	DoneReason      string
	// PromptEvalDuration is how long the model spent on the prompt: small
	// when it could reuse what it evaluated for the previous request.
	PromptEvalDuration time.Duration
}

// ModelInfo describes an installed model. ContextLength is the longest
// context the model was trained for (0 when the model does not say).
type ModelInfo struct {
	Name          string   `json:"name"`
	ContextLength int      `json:"context_length"`
	Family        string   `json:"family"`
	ParameterSize string   `json:"parameter_size"`
	Quantization  string   `json:"quantization"`
	Capabilities  []string `json:"capabilities"`
}
