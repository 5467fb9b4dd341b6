package core

import (
	"context"
	"strings"
	"sync"
	"testing"

	"agent/core/ollamatest"
	"agent/memory"

	"github.com/ollama/ollama/api"
)

// recordingRecall is the real index recall, remembering what it returned,
// so a test can tell "recall did not find it" from "chat left it out".
type recordingRecall struct {
	Recaller
	mu   sync.Mutex
	hits []Recalled
}

func (r *recordingRecall) Recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	hits, err := r.Recaller.Recall(ctx, text, k)
	r.mu.Lock()
	r.hits = append([]Recalled(nil), hits...)
	r.mu.Unlock()
	return hits, err
}

func (r *recordingRecall) last() []Recalled {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits
}

// A turn the window carries is not recalled again: the index finds the
// session's own logged turn, and chat leaves it out of the recall, while
// another session, whose window does not carry it, gets it. The turn is
// kept shorter than the window's text probe (24 characters), so the text
// match of inWindow cannot be what leaves it out.
func TestCarriedTurnIsNotRecalledAgain(t *testing.T) {
	f := newChatFixture(t, true)
	rec := &recordingRecall{Recaller: f.mem}
	f.chat.Memory = rec
	f.srv.Script(ollamatest.Text("Noted: blue door."), ollamatest.Text("Still blue."), ollamatest.Text("Blue, you said."))
	ctx := context.Background()

	s1 := f.session("s1")
	if _, err := f.chat.Turn(ctx, s1, "my door is blue", nil); err != nil {
		t.Fatal(err)
	}
	ownTurn := func(hits []Recalled) bool {
		for _, h := range hits {
			if strings.HasSuffix(h.Heading, memory.TurnHeadingMark+"s1") && strings.Contains(h.Text, "my door is blue") {
				return true
			}
		}
		return false
	}
	recalled := func(req api.ChatRequest) bool {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "<memory source=\"logs/2026-11-22.md:") && strings.Contains(m.Content, "session s1") {
				return true
			}
		}
		return false
	}

	// The same session asks again: the index returns its first turn,
	// which the window carries, so it is not brought back.
	if _, err := f.chat.Turn(ctx, s1, "which door is blue", nil); err != nil {
		t.Fatal(err)
	}
	if !ownTurn(rec.last()) {
		t.Fatalf("the index did not return the session's own turn, so this test proves nothing: %+v", rec.last())
	}
	reqs := f.srv.Requests()
	if recalled(reqs[1]) {
		t.Errorf("the session's carried turn was recalled again:\n%s", reqs[1].Messages[len(reqs[1].Messages)-1].Content)
	}
	if msgs := f.messages(s1); len(msgs) != 4 {
		t.Errorf("%d stored messages, want 4", len(msgs))
	}

	// Another session's window does not carry it: there it is recalled.
	s2 := f.session("s2")
	if _, err := f.chat.Turn(ctx, s2, "which door is blue", nil); err != nil {
		t.Fatal(err)
	}
	if !ownTurn(rec.last()) {
		t.Fatalf("the index did not return s1's turn for s2: %+v", rec.last())
	}
	if !recalled(f.srv.Requests()[2]) {
		t.Errorf("s1's turn was not recalled for s2, whose window does not carry it")
	}
}
