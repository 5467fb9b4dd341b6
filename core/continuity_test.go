package core

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
)

var (
	memorySource = regexp.MustCompile(`<memory source="([^"]+)"`)
	loggedUser   = regexp.MustCompile(`(?m)^\*\*User:\*\* (.+)$`)
)

// 100 turns of one session, the window cut again and again, recall finding
// the session's own dropped turns and the notes: no request ever holds the
// same passage twice — not in two stored contexts, and not a logged turn
// whose exchange the window still carries.
func TestLongSessionNeverHoldsAPassageTwice(t *testing.T) {
	f := newChatFixture(t, true)
	f.notes()
	f.chat.NumCtx = 3900 // ~800 of them for the built-in tool list
	topics := []string{"kayak", "Lisbon", "garden", "tulips", "Porto", "hotel", "sister", "river", "blue door", "December"}
	var replies []ollamatest.Reply
	for i := 0; i < 100; i++ {
		replies = append(replies, ollamatest.Text(fmt.Sprintf("Reply %d: noted about the %s.", i, topics[(i*7)%10])))
	}
	f.srv.Script(replies...)
	s := f.session("hundred")
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		f.now = f.now.Add(2 * time.Minute)
		msg := fmt.Sprintf("note %d: about the %s and the %s", i, topics[i%10], topics[(i*3+1)%10])
		if _, err := f.chat.Turn(ctx, s, msg, nil); err != nil {
			t.Fatal(err)
		}
	}
	cut, ownRecalled := 0, 0
	for i, req := range f.srv.Requests() {
		seen := map[string]bool{}
		var users []string
		for _, m := range req.Messages {
			for _, src := range memorySource.FindAllStringSubmatch(m.Content, -1) {
				if seen[src[1]] {
					t.Errorf("request %d holds %s twice", i+1, src[1])
				}
				seen[src[1]] = true
			}
			if m.Role == "user" {
				users = append(users, m.Content)
			}
		}
		if len(users) < 2*i/3 {
			cut++
		}
		// A logged turn recalled into this request must not be one whose
		// exchange the window carries: its user words end no user message.
		for _, m := range req.Messages {
			for _, block := range strings.Split(m.Content, "<memory ")[1:] {
				if !strings.Contains(block, "· session hundred") {
					continue
				}
				ownRecalled++
				for _, said := range loggedUser.FindAllStringSubmatch(block, -1) {
					for _, u := range users {
						if strings.HasSuffix(strings.TrimSpace(u), strings.TrimSpace(said[1])) {
							t.Errorf("request %d: the logged turn %q is recalled and in the window", i+1, said[1])
						}
					}
				}
			}
		}
	}
	if cut == 0 || ownRecalled == 0 {
		t.Errorf("the test needs the window cut (%d requests) and dropped turns recalled (%d blocks)", cut, ownRecalled)
	}
}
