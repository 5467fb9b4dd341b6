package core

import (
	"context"
	"strings"
	"testing"
	"time"

	"agent/core/reminders"
)

// The identity section names what is due and what is scheduled, a few lines
// each and how many more; it is the same a minute later and changes when a
// reminder falls due.
func TestIdentityPendingAndJobs(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	rs := reminders.NewStore(f.ws.State, func() time.Time { return f.now })
	for i, d := range []time.Duration{-3 * time.Hour, -2 * time.Hour, -time.Hour, -time.Minute, 30 * time.Minute} {
		if _, err := rs.Add(ctx, "call the landlord "+string(rune('A'+i)), f.now.Add(d), "test"); err != nil {
			t.Fatal(err)
		}
	}
	s := f.session("id")
	first, err := f.chat.Assemble(ctx, s, "hello")
	if err != nil {
		t.Fatal(err)
	}
	sys := first.Messages[0].Content
	if !strings.Contains(sys, "## Pending\n\n- reminder ") || !strings.Contains(sys, "… and 1 more (agent reminders list)") {
		t.Fatalf("pending reminders missing or uncut:\n%s", sys)
	}
	f.now = f.now.Add(time.Minute)
	again, _ := f.chat.Assemble(ctx, s, "hello")
	if again.Messages[0].Content != sys {
		t.Error("the identity section changed within a minute with nothing falling due")
	}
	f.now = f.now.Add(time.Hour) // the fifth falls due
	later, _ := f.chat.Assemble(ctx, s, "hello")
	if !strings.Contains(later.Messages[0].Content, "… and 2 more") {
		t.Errorf("a reminder falling due did not change the section:\n%s", later.Messages[0].Content)
	}
}
