package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// longSession stores n exchanges of varied sizes, now and then with a
// tool call, a context or an interrupted reply, as chat stores them.
func longSession(t *testing.T, st *Sessions, name string, n int) Session {
	t.Helper()
	ctx := context.Background()
	s, err := st.Create(ctx, name, "llama3.2:latest")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	words := func(k int) string { return strings.Repeat(fmt.Sprintf("w%d ", rng.IntN(100)), k) }
	for i := range n {
		u := StoredMessage{Role: "user", Content: fmt.Sprintf("question %d %s", i, words(5+rng.IntN(60)))}
		if rng.IntN(3) == 0 {
			u.Context = "[sent Sun 22 Nov 2026 09:30]\n\n" + recallHeader + words(rng.IntN(80))
		}
		msgs := []StoredMessage{u}
		if rng.IntN(6) == 0 {
			msgs = append(msgs, StoredMessage{Role: "assistant", ToolCalls: []ToolCall{{Name: ToolLogNote, Arguments: map[string]any{"text": "x"}}}},
				StoredMessage{Role: "tool", ToolName: ToolLogNote, Content: words(20)})
		}
		reply := StoredMessage{Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, words(5+rng.IntN(120)))}
		if rng.IntN(10) == 0 {
			reply.Status = StatusInterrupted
		}
		for _, m := range append(msgs, reply) {
			if _, err := st.Append(ctx, &s, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

// A turn reads only the session's tail, and the window it builds from the
// tail is the one it would build from the whole session: the same
// messages, the same blocks, the same report of what was cut, for both
// placements, contexts small and large, and calibrations that change the
// block size.
func TestTheWindowFromTheTailIsTheWindowFromTheWholeSession(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	st := f.chat.Sessions
	s := longSession(t, st, "long", 1500)
	whole, err := st.Messages(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, numCtx := range []int{4096, 16384} {
		tail, err := st.Tail(ctx, s, numCtx*maxCharsPerToken)
		if err != nil {
			t.Fatal(err)
		}
		if len(tail) >= len(whole)/4 || tail[0].Role != "user" || !reflect.DeepEqual(tail, whole[len(whole)-len(tail):]) {
			t.Fatalf("num_ctx %d: the tail is %d of %d messages, starting with a %s message, or not the session's end", numCtx, len(tail), len(whole), tail[0].Role)
		}
		for _, placement := range []string{PlacementExchange, PlacementLayer} {
			for _, cpt := range []float64{0, 1.5, 2.5, 4} {
				in := baseInput()
				in.NumCtx, in.Reserve, in.CharsPerToken, in.Placement = numCtx, numCtx/8, cpt, placement
				in.History = whole
				a, err := assemble(in)
				if err != nil {
					t.Fatal(err)
				}
				in.History = tail
				b, err := assemble(in)
				if err != nil {
					t.Fatal(err)
				}
				hist := func(x *Assembled) Layer {
					return x.Layers[slices.IndexFunc(x.Layers, func(l Layer) bool { return l.Name == LayerHistory })]
				}
				if !reflect.DeepEqual(a.Messages, b.Messages) || !reflect.DeepEqual(a.Layers, b.Layers) || !reflect.DeepEqual(a.Cuts, b.Cuts) {
					t.Errorf("num_ctx %d, %s, %.1f chars/token: from the tail %d messages (%+v), from the whole session %d (%+v)",
						numCtx, placement, cpt, len(b.Messages), hist(b), len(a.Messages), hist(a))
				}
				if hist(a).Dropped == 0 {
					t.Errorf("num_ctx %d: nothing dropped from %d messages: the test proves nothing", numCtx, len(whole))
				}
			}
		}
	}
	// A short session is read whole.
	short := longSession(t, st, "short", 3)
	tail, err := st.Tail(ctx, short, 8192*maxCharsPerToken)
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := st.Messages(ctx, short); !reflect.DeepEqual(tail, all) {
		t.Errorf("a short session's tail is %d of its %d messages", len(tail), len(all))
	}
}

// Where each message stands is kept on insert (by a trigger, for any
// writer) and filled in by the migrations for the messages stored before
// them, the same as transcriptChars and carried count them.
func TestMessagePositionsKeptAndBackfilled(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	st := f.chat.Sessions
	a := longSession(t, st, "a", 40)
	b := longSession(t, st, "b", 30) // interleaved sessions count apart
	check := func(when string) {
		t.Helper()
		for _, s := range []Session{a, b} {
			msgs, err := st.Messages(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			var chars, n int64
			for _, m := range msgs {
				if m.CharsBefore != chars || m.MsgsBefore != n {
					t.Fatalf("%s: session %s message %d at (%d, %d), want (%d, %d)", when, s.Name, m.ID, m.CharsBefore, m.MsgsBefore, chars, n)
				}
				chars += transcriptChars(m)
				if carried(m) {
					n++
				}
			}
		}
	}
	check("kept on insert")
	for _, q := range []string{
		`DROP TRIGGER messages_position`,
		`ALTER TABLE messages DROP COLUMN chars_before`,
		`ALTER TABLE messages DROP COLUMN msgs_before`,
		`DELETE FROM schema_migrations WHERE name IN ('core/0004_transcript_offsets.sql', 'core/0005_window_positions.sql')`,
	} {
		if _, err := f.ws.State.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	f.ws.Close()
	ws, err := Open(ctx, f.home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	st = NewSessions(ws.State, time.Now)
	check("backfilled by the migration")
}

// A session's fold point is kept with each request and never moves back,
// whatever a later request says (a fold is never undone).
func TestFoldPointOnlyMovesForward(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	st := f.chat.Sessions
	s, err := st.Create(ctx, "folds", "llama3.2:latest")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ send, want int64 }{{0, 0}, {7, 7}, {3, 7}, {0, 7}, {12, 12}} {
		if _, err := st.AppendRequest(ctx, &s, StoredMessage{Role: "user", Content: "hello"}, "request", step.send); err != nil {
			t.Fatal(err)
		}
		if _, got, err := st.LastRequest(ctx, s); err != nil || got != step.want {
			t.Fatalf("after a request with fold point %d: %d (%v), want %d", step.send, got, err, step.want)
		}
	}
}
