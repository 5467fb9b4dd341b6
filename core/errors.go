package core

import "errors"

// ErrModelUnavailable marks Ollama unreachable or the model missing (exit 4).
var ErrModelUnavailable = errors.New("model unavailable")

// DefaultModel is used when neither --model nor AGENT_MODEL is set.
const DefaultModel = "llama3.2"
