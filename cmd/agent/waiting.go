package main

import (
	"context"
	"fmt"
	"sync"

	"agent/core"
	"agent/core/window"
)

// sentModel is the chat's model, remembering the requests it is sent, so
// that the wait line can say how much of the prompt Ollama has to
// evaluate (window.NewPromptTokens) once the request is on its way.
type sentModel struct {
	core.Model
	mu         sync.Mutex
	prev, last *core.ChatRequest
	next       chan struct{} // closed when the next request is sent
}

func (m *sentModel) Chat(ctx context.Context, req core.ChatRequest, onToken func(string)) (core.Reply, error) {
	m.mu.Lock()
	m.prev, m.last = m.last, &req
	if m.next != nil {
		close(m.next)
		m.next = nil
	}
	m.mu.Unlock()
	return m.Model.Chat(ctx, req, onToken)
}

// nextSent is closed when the next request is sent.
func (m *sentModel) nextSent() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next == nil {
		m.next = make(chan struct{})
	}
	return m.next
}

// newTokens is the estimate of the last request's tokens not in Ollama's
// cache from the one before.
func (m *sentModel) newTokens() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil {
		return 0
	}
	return window.NewPromptTokens(m.prev, m.last)
}

// waitProbe says what a turn of s is waiting for, once the wait has lasted
// past waitDelay (never on a fast turn): after its request is sent, Ollama
// is asked once (/api/ps) whether the model is in memory. Not loaded, the
// wait is the load; loaded, it is the prompt's evaluation. "" when that
// cannot be told (the request never went, or Ollama did not say).
func waitProbe(s *chatSession) func(ctx context.Context) string {
	if s.sent == nil || s.ollama == nil {
		return nil
	}
	sent := s.sent.nextSent()
	return func(ctx context.Context) string {
		select {
		case <-sent:
		case <-ctx.Done():
			return ""
		}
		loaded, err := s.ollama.Loaded(ctx, s.chat.ModelName)
		switch {
		case err != nil:
			return ""
		case !loaded:
			return "loading " + s.chat.ModelName
		}
		return fmt.Sprintf("%s evaluating ~%d tokens", s.chat.ModelName, s.sent.newTokens())
	}
}
