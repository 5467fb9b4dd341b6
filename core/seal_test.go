package core

import (
	"context"
	"testing"
	"time"

	"agent/core/ollamatest"
	"agent/core/window"
)

// The request text a turn keeps for the next turn's cache check is the
// request it sent, message for message, in either placement: seal knows
// the new message, its context and the replayed history by their place.
func TestKeptRequestIsTheSentOneInEitherPlacement(t *testing.T) {
	for _, placement := range []string{window.PlacementExchange, window.PlacementLayer} {
		f := newChatFixture(t, true)
		f.notes()
		f.chat.Placement = placement
		f.srv.Default(ollamatest.Text(cacheReply))
		s := f.session("kept")
		ctx := context.Background()
		for i, q := range cacheQuestions[:4] {
			f.now = f.now.Add(3 * time.Minute)
			if _, err := f.chat.Turn(ctx, s, q, nil); err != nil {
				t.Fatal(err)
			}
			reqs := f.srv.Requests()
			var sent []Message
			for _, m := range reqs[len(reqs)-1].Messages {
				sent = append(sent, Message{Role: m.Role, Content: m.Content})
			}
			kept, _, err := f.chat.Sessions.LastRequest(ctx, *s)
			if err != nil {
				t.Fatal(err)
			}
			if want := window.RequestText(sent); kept != want {
				t.Errorf("%s, turn %d: kept request differs from the sent one at byte %d of %d", placement, i+1, window.SharedPrefix(kept, want), len(want))
			}
		}
	}
}
