package main

import (
	"context"
	"strings"
	"testing"

	"agent/core"
	"agent/core/window"
)

// replyModel answers every request at once.
type replyModel struct{ core.Model }

func (replyModel) Chat(context.Context, core.ChatRequest, func(string)) (core.Reply, error) {
	return core.Reply{}, nil
}

// The wait line's count is of the tokens Ollama has not cached: the second
// turn's request extends the first, so only what follows the first is new,
// not the whole prompt; a request that shares nothing counts whole.
func TestWaitCountsOnlyWhatTheLastRequestDidNotSend(t *testing.T) {
	system := core.Message{Role: "system", Content: strings.Repeat("You are Atlas, calm and brief. ", 200)}
	first := core.ChatRequest{Model: "llama3.2", Messages: []core.Message{system, {Role: "user", Content: "are you there?"}}}
	second := core.ChatRequest{Model: "llama3.2", Messages: append(append([]core.Message{}, first.Messages...),
		core.Message{Role: "assistant", Content: "I am."}, core.Message{Role: "user", Content: "and now?"})}
	m := &sentModel{Model: replyModel{}}
	ctx := context.Background()
	if _, err := m.Chat(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	if got, whole := m.newTokens(), window.NewPromptTokens(nil, &first); got != whole {
		t.Errorf("first request: %d new tokens, want the whole prompt's %d", got, whole)
	}
	if _, err := m.Chat(ctx, second, nil); err != nil {
		t.Fatal(err)
	}
	got, whole := m.newTokens(), window.NewPromptTokens(nil, &second)
	if want := window.NewPromptTokens(&first, &second); got != want || got >= whole/10 {
		t.Errorf("second request: %d new tokens, want %d (the whole prompt is %d)", got, want, whole)
	}
}
