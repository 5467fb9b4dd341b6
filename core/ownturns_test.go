package core

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"agent/core/ollamatest"
	"agent/core/window"
)

// Which hits are a session's own logged turns is read from its history
// when that holds the whole session, without a query: the very spans the
// store's query gives (Sessions.LoggedIn), not another session's turns in
// the same log nor turns in a log no hit comes from; a history that is only the session's tail says it cannot
// tell, and the turn asks the store.
func TestOwnTurnsFromTheWholeHistory(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	f.srv.Default(ollamatest.Text("Noted."))
	s, other := f.session("own"), f.session("other")
	for i := range 3 {
		for _, in := range []*Session{s, other} {
			if _, err := f.chat.Turn(ctx, in, fmt.Sprintf("note %d of %s: the garden and the tulips", i, in.Name), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	history, err := f.chat.Sessions.Tail(ctx, *s, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	logs := window.LogsOf([]Recalled{{Path: "MEMORY.md"}, {Path: history[0].Logged.Path}, {Path: "logs/2026-01-01.md"}})
	own, whole := window.OwnTurns(history, logs)
	want, err := f.chat.Sessions.LoggedIn(ctx, *s, logs)
	if err != nil {
		t.Fatal(err)
	}
	byStart := func(a, b LogSpan) int { return a.Start - b.Start }
	slices.SortFunc(own, byStart)
	slices.SortFunc(want, byStart)
	if !whole || len(want) != 3 || !slices.Equal(own, want) {
		t.Errorf("from the whole history: %v (whole %v), the store says %v", own, whole, want)
	}
	if own, _ := window.OwnTurns(history, []string{"logs/2026-01-01.md"}); len(own) != 0 {
		t.Errorf("hits in another log: own turns %v", own)
	}
	tail, err := f.chat.Sessions.Tail(ctx, *s, 10) // the last exchange only
	if err != nil {
		t.Fatal(err)
	}
	if own, whole := window.OwnTurns(tail, logs); whole {
		t.Errorf("a tail of %d messages (of %d) was taken for the whole session: %v", len(tail), len(history), own)
	}
}
