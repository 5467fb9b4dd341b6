package core

import (
	"errors"

	"agent/core/ollama"
	"agent/core/window"
)

// ErrModelUnavailable marks Ollama unreachable or the model missing (exit 4).
var ErrModelUnavailable = ollama.ErrUnavailable

// DefaultModel is used when neither --model nor AGENT_MODEL is set.
const DefaultModel = "llama3.2"

// ErrInvalidInput marks a bad value from the user (exit 2).
var ErrInvalidInput = errors.New("invalid input")

// ErrContextTooSmall means the layers that are never dropped (fixed prompt,
// SOUL.md, profile) and the new message do not fit the model's context.
var ErrContextTooSmall = window.ErrContextTooSmall

// ErrNoSession is returned when a named session or the latest one does not
// exist (exit 3).
var ErrNoSession = errors.New("no such session")
