package core

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
	"agent/memory"
)

// A turn of this session that the window has dropped is recalled even when
// its logged reply is a stock answer the window still carries word for word
// (24+ characters, long enough for the text match that other sessions'
// passages get). A logged turn of the session is told by its user's words
// only: were the reply enough, the stock answer in the window would hide
// the very turn the user is asking about.
func TestDroppedOwnTurnWithRepeatedReplyIsRecalled(t *testing.T) {
	f := newChatFixture(t, true)
	rec := &recordingRecall{Recaller: f.mem}
	f.chat.Memory = rec
	f.chat.NumCtx = 3900 // ~800 of them for the built-in tool list
	const stock = "Understood, I have written that down for you."
	const filler = 14
	var replies []ollamatest.Reply
	for i := 0; i < filler+2; i++ {
		replies = append(replies, ollamatest.Text(stock))
	}
	f.srv.Script(replies...)
	s := f.session("stock")
	ctx := context.Background()

	const secret = "my gym locker combination is 4417"
	if _, err := f.chat.Turn(ctx, s, secret, nil); err != nil {
		t.Fatal(err)
	}
	topics := []string{"kayak", "Lisbon", "garden", "tulips", "Porto", "hotel", "sister", "river", "blue door", "December"}
	for i := 0; i < filler; i++ {
		f.now = f.now.Add(2 * time.Minute)
		msg := fmt.Sprintf("note %d about the %s: %s", i, topics[i%len(topics)],
			strings.Repeat(fmt.Sprintf("the %s and the %s matter this week. ", topics[(i+3)%len(topics)], topics[(i+7)%len(topics)]), 25))
		if _, err := f.chat.Turn(ctx, s, msg, nil); err != nil {
			t.Fatal(err)
		}
	}
	f.now = f.now.Add(2 * time.Minute)
	if _, err := f.chat.Turn(ctx, s, "what is my gym locker combination?", nil); err != nil {
		t.Fatal(err)
	}

	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	// The test proves something only if the window dropped the first turn,
	// still carries the stock reply, and the index returned the turn.
	stockInWindow := false
	for _, m := range last.Messages {
		if m.Role == "user" && strings.HasSuffix(strings.TrimSpace(m.Content), secret) {
			t.Fatalf("the window still carries the first turn; make the filler longer")
		}
		if m.Role == "assistant" && strings.TrimSpace(m.Content) == stock {
			stockInWindow = true
		}
	}
	if !stockInWindow {
		t.Fatalf("the window carries no stock reply, so this test proves nothing")
	}
	found := false
	for _, h := range rec.last() {
		if strings.HasSuffix(h.Heading, memory.TurnHeadingMark+"stock") && strings.Contains(h.Text, secret) {
			// Since issue 46 the reply is a chunk of its own (the
			// assistant's words): the user's half cannot hold the stock
			// reply, and must be recalled all the same.
			found = true
			if strings.Contains(h.Text, stock) || h.By != "" {
				t.Fatalf("the user's half of the turn holds the reply or is not the user's:\n%s", h.Text)
			}
		}
	}
	if !found {
		t.Fatalf("the index did not return the dropped turn, so this test proves nothing: %+v", rec.last())
	}

	recalled := false
	for _, m := range last.Messages {
		for _, block := range strings.Split(m.Content, "<memory ")[1:] {
			if strings.Contains(block, "session stock") && strings.Contains(block, "4417") {
				recalled = true
			}
		}
	}
	if !recalled {
		t.Errorf("the dropped turn was not recalled; its stock reply in the window hid it:\n%s",
			last.Messages[len(last.Messages)-1].Content)
	}
}
