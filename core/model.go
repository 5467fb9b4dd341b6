package core

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/types/model"

	"agent/core/llm"
	"agent/core/ollama"
)

// The model protocol's types live in core/llm (so that core/window, which
// builds a request's messages, stands below core); these names are core's.
type (
	Model       = llm.Model
	Message     = llm.Message
	ToolCall    = llm.ToolCall
	ToolSpec    = llm.ToolSpec
	ToolParam   = llm.ToolParam
	ChatRequest = llm.ChatRequest
	Reply       = llm.Reply
	ModelInfo   = llm.ModelInfo
)

// The Ollama adapter lives in core/ollama; these names are core's.
type Ollama = ollama.Client

// Timeouts for a streamed reply (core/ollama).
const (
	DefaultStallTimeout = ollama.DefaultStallTimeout
	DefaultLoadTimeout  = ollama.DefaultLoadTimeout
)

// NewOllama returns an adapter for the server at OLLAMA_HOST (ollama.New).
func NewOllama(httpClient *http.Client) (*Ollama, error) { return ollama.New(httpClient) }

// NormalizeModel spells a model name the way Ollama lists it (ollama.NormalizeModel).
func NormalizeModel(name string) string { return ollama.NormalizeModel(name) }

// ToolsChars is the size of a tool list as sent (ollama.ToolsChars).
func ToolsChars(specs []ToolSpec) int { return ollama.ToolsChars(specs) }

// ValidModelName refuses a name Ollama could never accept ("bad model!!"),
// as a usage error that says what a name looks like.
func ValidModelName(name string) error {
	if !model.ParseName(strings.TrimSpace(name)).IsValid() {
		return fmt.Errorf("%w: model name %q: want NAME or NAME:TAG, e.g. llama3.2 or qwen2.5:7b (letters, digits, '.', '-', '_'; a namespace/ or host/ in front if needed)", ErrInvalidInput, name)
	}
	return nil
}
