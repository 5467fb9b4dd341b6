package window

import (
	"testing"

	"agent/core/llm"
)

func TestNewPromptTokensLeavesOutTheCachedPrefix(t *testing.T) {
	sys := Message{Role: "system", Content: "You are Atlas. " + string(make([]byte, 0))}
	a := llm.ChatRequest{Model: "m", Messages: []Message{sys, {Role: "user", Content: "hello there"}}}
	b := llm.ChatRequest{Model: "m", Messages: append(append([]Message{}, a.Messages...), Message{Role: "assistant", Content: "hi"}, Message{Role: "user", Content: "and now?"})}
	all := NewPromptTokens(nil, &b)
	added := NewPromptTokens(&a, &b)
	if added <= 0 || added >= all {
		t.Errorf("new tokens after a shared prefix = %d, of %d in all: want fewer, not none", added, all)
	}
	other := b
	other.Model = "n"
	if got := NewPromptTokens(&a, &other); got != all {
		t.Errorf("another model shares no cache: got %d, want %d", got, all)
	}
}
