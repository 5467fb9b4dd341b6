package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"agent/core/ollamatest"
	"agent/profile"
	"agent/soul"
)

// The cache rule, asserted on the wire: a local model reuses the longest
// common prefix of consecutive requests, so within a session request N+1
// must begin with exactly the messages of request N followed by its reply,
// unless something the fixed layers show has changed.

func wire(req api.ChatRequest) []string {
	out := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		out[i] = m.Role + "\x00" + m.Content
	}
	return out
}

// extends reports whether next begins with prev and then prev's reply.
func extends(prev, next api.ChatRequest, reply string) bool {
	p, n := wire(prev), wire(next)
	return len(n) > len(p)+1 && slices.Equal(n[:len(p)], p) && n[len(p)] == "assistant\x00"+reply
}

// firstDifference names where two requests part, for failure messages.
func firstDifference(prev, next api.ChatRequest) string {
	p, n := wire(prev), wire(next)
	for i := range min(len(p), len(n)) {
		if p[i] != n[i] {
			a, b := p[i], n[i]
			j := sharedPrefix(a, b)
			return fmt.Sprintf("message %d differs at byte %d: %q vs %q", i, j, clipTest(a[j:]), clipTest(b[j:]))
		}
	}
	return fmt.Sprintf("%d messages vs %d", len(p), len(n))
}

const cacheReply = "Noted. I will keep that in mind for the trip."

// noLateSystem fails if a request has a system message after the fixed
// three (prompt, persona, profile): Ollama joins every system message into
// .System, which llama3.x and qwen2.x print at the very top, so one that
// varies would put new bytes at the front of every request.
func noLateSystem(t *testing.T, i int, req api.ChatRequest) {
	t.Helper()
	for j, m := range req.Messages {
		if j >= 3 && m.Role == "system" {
			t.Errorf("request %d: message %d is a system message after the conversation started: %q", i+1, j, clipTest(m.Content))
		}
	}
}

// notes gives recall something to find, so recall varies from turn to turn.
func (f *chatFixture) notes() {
	f.write("MEMORY.md", "# Memory\n\n## User Facts\n\n- My sister Ana lives in Porto.\n- I fly to Lisbon on the fourth of December.\n")
	f.write("logs/2026-11-20.md", "# 2026-11-20\n\n## Trip planning\n\nBooked the hotel in Lisbon near the river.\n\n## Garden\n\nPlanted tulips by the blue door.\n")
}

var cacheQuestions = []string{
	"when do I fly to Lisbon?", "where does my sister live?", "what did I plant?", "which hotel did I book?",
	"remind me about the trip", "what about the garden?", "anything about Porto?", "and the blue door?",
	"what else is planned?", "summarise what you know",
}

func TestRequestsStayAPrefixInOneProcess(t *testing.T) {
	f := newChatFixture(t, true)
	f.notes()
	f.srv.Default(ollamatest.Text(cacheReply))
	s := f.session("cache")
	for i, q := range cacheQuestions {
		f.now = f.now.Add(3 * time.Minute) // the time of day moves; the prefix must not
		res, err := f.chat.Turn(context.Background(), s, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && res.PrefixReuse == 0 {
			t.Errorf("turn %d: prefix_reuse 0", i+1)
		}
	}
	reqs := f.srv.Requests()
	if len(reqs) != len(cacheQuestions) {
		t.Fatalf("%d requests", len(reqs))
	}
	for i := 1; i < len(reqs); i++ {
		if !extends(reqs[i-1], reqs[i], cacheReply) {
			t.Errorf("request %d does not extend request %d: %s", i+1, i, firstDifference(reqs[i-1], reqs[i]))
		}
	}
	for i, r := range reqs {
		noLateSystem(t, i, r)
	}
}

// The same from the shell: each turn a new process (`agent chat --continue
// "…"`), rebuilding the earlier bytes from state.db.
func TestRequestsStayAPrefixAcrossProcesses(t *testing.T) {
	reqs := conversationAcrossProcesses(t)
	for i := 1; i < len(reqs); i++ {
		if !extends(reqs[i-1], reqs[i], cacheReply) {
			t.Errorf("request %d does not extend request %d: %s", i+1, i, firstDifference(reqs[i-1], reqs[i]))
		}
	}
	for i, r := range reqs {
		noLateSystem(t, i, r)
	}
}

// conversationAcrossProcesses runs cacheQuestions as one session, a new
// Chat (process) per turn, with notes to recall and the clock moving, and
// returns the requests sent.
func conversationAcrossProcesses(t *testing.T) []api.ChatRequest {
	t.Helper()
	f := newChatFixture(t, true)
	f.notes()
	f.srv.Default(ollamatest.Text(cacheReply))
	f.session("cache")
	for _, q := range cacheQuestions {
		f.reopen()
		f.now = f.now.Add(7 * time.Minute)
		s, err := f.chat.Sessions.Latest(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.chat.Turn(context.Background(), &s, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	return f.srv.Requests()
}

// A SOUL revision, a profile change, a new day and a window cut each break
// the prefix once; the request after each extends the changed one again.
func TestEachStateChangeBreaksThePrefixOnce(t *testing.T) {
	f := newChatFixture(t, true)
	f.notes()
	f.srv.Default(ollamatest.Text(cacheReply))
	ctx := context.Background()
	s := f.session("changes")
	changes := map[int]string{
		3: "soul", 5: "profile", 7: "date",
	}
	turn := func(i int) *TurnResult {
		t.Helper()
		f.now = f.now.Add(time.Minute)
		res, err := f.chat.Turn(ctx, s, fmt.Sprintf("question %d about the trip", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := 1; i <= 9; i++ {
		switch changes[i] {
		case "soul":
			if _, err := f.chat.Soul.Save(ctx, "# Soul\n\nI am brisk.\n", soul.Agent, "test"); err != nil {
				t.Fatal(err)
			}
		case "profile":
			if _, err := f.chat.Profile.Set(ctx, profile.ByUser("test"), "user.pref.coffee", "black"); err != nil {
				t.Fatal(err)
			}
		case "date":
			f.now = f.now.Add(24 * time.Hour)
		}
		turn(i)
	}
	reqs := f.srv.Requests()
	for i := 1; i < len(reqs); i++ {
		want := changes[i+1] == ""
		if got := extends(reqs[i-1], reqs[i], cacheReply); got != want {
			t.Errorf("turn %d (%s): extends = %v, want %v: %s", i+1, changes[i+1], got, want, firstDifference(reqs[i-1], reqs[i]))
		}
	}

	// The window: a context too small for the whole conversation cuts it
	// in blocks, each cut reported and breaking the prefix once, with
	// several turns between cuts. A fold (older contexts replayed without
	// their passages) breaks it too, but what follows the break holds no
	// recalled passage but the new message's.
	f.chat.NumCtx, f.chat.NumPredict = 3400, 256 // ~800 of them for the tool list
	s = f.session("window")
	before := len(f.srv.Requests())
	var dropped, folded []int
	for i := 0; i < 40; i++ {
		res := turn(100 + i)
		for _, l := range res.Layers {
			if l.Name == LayerHistory {
				dropped = append(dropped, l.Dropped)
				folded = append(folded, l.Folded)
			}
		}
	}
	reqs = f.srv.Requests()[before:]
	cuts, folds, lastCut := 0, 0, 0
	for i := 1; i < len(reqs); i++ {
		cut := dropped[i] != dropped[i-1]
		fold := !cut && folded[i] > folded[i-1]
		if cut {
			cuts++
			if i-lastCut < 3 {
				t.Errorf("turn %d: a cut only %d turns after the last one (dropped %v)", i+1, i-lastCut, dropped)
			}
			lastCut = i
		}
		if fold {
			folds++
			p, n := wire(reqs[i-1]), wire(reqs[i])
			at := 0
			for at < len(p) && p[at] == n[at] {
				at++
			}
			for j := at; j < len(n)-1; j++ {
				if strings.Contains(n[j], recallHeader) {
					t.Errorf("window turn %d: a fold re-sends message %d with its passages: %q", i+1, j, clipTest(n[j]))
				}
			}
		}
		if got := extends(reqs[i-1], reqs[i], cacheReply); got == (cut || fold) {
			t.Errorf("window turn %d: cut = %v, fold = %v but extends = %v (dropped %v, folded %v): %s", i+1, cut, fold, got, dropped, folded, firstDifference(reqs[i-1], reqs[i]))
		}
	}
	t.Logf("messages dropped per turn: %v; folded: %v", dropped, folded)
	if cuts < 2 || folds < 1 {
		t.Errorf("expected the window to move at least twice and fold at least once in 40 turns, dropped per turn: %v, folded: %v", dropped, folded)
	}
}

// A session stored before the context moved into the user's message (each
// message's context then sent as a system message before it) keeps its
// rows: the columns are the same, only how they are joined changed. Its
// next turn replays every old message with its context at the top, breaks
// the prefix once against the old last request, and the turn after
// extends it again.
func TestAnEarlierLayoutSessionReplays(t *testing.T) {
	f := newChatFixture(t, true)
	f.notes()
	f.srv.Default(ollamatest.Text(cacheReply))
	ctx := context.Background()
	s := f.session("old")
	oldCtx := "[sent Sat 21 Nov 2026 18:00]\n\n" + recallHeader + "\n<memory source=\"MEMORY.md:5-6 › Memory › User Facts\">\n- My sister Ana lives in Porto.\n</memory>\n"
	oldRequest := "system\x00fixed\x00user\x00where does Ana live?\x00" // as the old code recorded it: roles and contents
	if _, err := f.chat.Sessions.AppendRequest(ctx, s, StoredMessage{Role: "user", Content: "where does Ana live?", Context: oldCtx}, oldRequest, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.chat.Sessions.Append(ctx, s, StoredMessage{Role: "assistant", Content: "In Porto."}); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	for _, q := range []string{"when do I fly?", "what did I plant?"} {
		if _, err := f.chat.Turn(ctx, s, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.srv.Requests()
	for i, r := range reqs {
		noLateSystem(t, i, r)
	}
	if got, want := reqs[0].Messages[3].Content, strings.TrimRight(oldCtx, "\n")+"\n\nwhere does Ana live?"; got != want {
		t.Errorf("the old message replayed as %q, want its context at the top: %q", got, want)
	}
	if !extends(reqs[0], reqs[1], cacheReply) {
		t.Errorf("the turn after does not extend the first: %s", firstDifference(reqs[0], reqs[1]))
	}
	// sessions show still has the words and their context apart
	stored := f.messages(s)
	if stored[0].Content != "where does Ana live?" || stored[0].Context != oldCtx {
		t.Errorf("stored %+v", stored[0])
	}
}
