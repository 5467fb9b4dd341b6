package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"agent/core/ollamatest"
)

// A new session must cost only its question (issue 40): a local model
// keeps the prefix of the last request, and one-shot `agent chat` starts a
// new session every time. What differs from one session to the next (its
// start time, the last session's words) travels with the session's first
// message, so the system block, the persona, the profile and the tool
// list are the same bytes for every session of a day.

// systemBlock is what a request sends before its conversation: the fixed
// messages and the tool list, as the template prints them.
func systemBlock(t *testing.T, req api.ChatRequest) string {
	t.Helper()
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role != "system" {
			break
		}
		b.WriteString(m.Content + "\x00")
	}
	tools, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(tools)
	return b.String()
}

// oneShot runs one `echo … | agent chat`: a new process, a new session
// named from the clock, one turn.
func (f *chatFixture) oneShot(question string) *Session {
	f.t.Helper()
	f.reopen()
	// the session's start on the test's clock, so that sessions begin in
	// different minutes
	f.chat.Sessions = NewSessions(f.ws.State, func() time.Time { return f.now })
	ctx := context.Background()
	s, err := f.chat.StartSession(ctx, "")
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.chat.Turn(ctx, &s, question, nil); err != nil {
		f.t.Fatal(err)
	}
	return &s
}

func TestNewSessionsShareTheSystemBlock(t *testing.T) {
	f := newChatFixture(t, true)
	f.notes()
	replies := []string{"Lisbon, on the fourth.", "In Porto.", "Tulips."}
	f.srv.Script(ollamatest.Text(replies[0]), ollamatest.Text(replies[1]), ollamatest.Text(replies[2]), ollamatest.Text(cacheReply))
	questions := []string{"when do I fly to Lisbon?", "where does my sister live?", "what did I plant?"}
	var sessions []*Session
	var sent []time.Time
	for i, q := range questions {
		// each a new process, each in another minute of the same day
		f.now = f.now.Add(time.Duration(7*i+1) * time.Minute)
		sent = append(sent, f.now)
		sessions = append(sessions, f.oneShot(q))
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := systemBlock(t, reqs[0])
	for i := 1; i < len(reqs); i++ {
		if got := systemBlock(t, reqs[i]); got != first {
			j := sharedPrefix(first, got)
			t.Errorf("session %d's system block differs from session 1's at byte %d: %q vs %q", i+1, j, clipTest(first[j:]), clipTest(got[j:]))
		}
	}
	// What differs is in the first user message: the time it was sent,
	// when the session began, and the last session fenced as recalled
	// memory is, its words neutralised and quoted.
	for i := 1; i < len(reqs); i++ {
		msg := reqs[i].Messages[len(reqs[i].Messages)-1]
		prev := sessions[i-1]
		began := sent[i].Format("Mon 2 Jan 2006 15:04")
		for _, want := range []string{
			"[sent " + sent[i].Format("Mon 2 Jan 2006 15:04") + "]\n\n",
			"[this conversation began " + began + "]\n",
			fmt.Sprintf("Last session: %q, ", prev.Name),
			"<memory source=\"last session\" by=\"user and model\">\n- The user said: '" + questions[i-1] + "'\n- You answered: '" + replies[i-1] + "'\n</memory>",
		} {
			if !strings.Contains(msg.Content, want) {
				t.Errorf("session %d's first message lacks %q:\n%s", i+1, want, msg.Content)
			}
		}
		if !strings.HasSuffix(msg.Content, "\n\n"+questions[i]) {
			t.Errorf("session %d's first message does not end with the question: %q", i+1, clipTest(msg.Content))
		}
	}
	if msg := reqs[0].Messages[len(reqs[0].Messages)-1].Content; !strings.Contains(msg, "Last session: none; this is the first conversation.") {
		t.Errorf("the first session's first message does not say it is the first:\n%s", msg)
	}
	for i, r := range reqs {
		noLateSystem(t, i, r)
	}

	// A later turn of the last session (another process, another minute)
	// replays its first message byte for byte, and its own message carries
	// only its time and recall.
	f.reopen()
	f.now = f.now.Add(5 * time.Minute)
	s, err := f.chat.Sessions.Latest(context.Background())
	if err != nil || s.Name != sessions[2].Name {
		t.Fatalf("latest %q, %v", s.Name, err)
	}
	if _, err := f.chat.Turn(context.Background(), &s, "and when do I fly back?", nil); err != nil {
		t.Fatal(err)
	}
	reqs = f.srv.Requests()
	if !extends(reqs[2], reqs[3], replies[2]) {
		t.Errorf("the second turn does not replay the first: %s", firstDifference(reqs[2], reqs[3]))
	}
	last := reqs[3].Messages[len(reqs[3].Messages)-1].Content
	if strings.Contains(last, "[this conversation began") || strings.Contains(last, "Last session") {
		t.Errorf("a later message carries the session's opening again:\n%s", last)
	}
	// Stored with the message, apart from the user's words.
	stored := f.messages(&s)
	if stored[0].Content != questions[2] || !strings.Contains(stored[0].Context, "[this conversation began ") {
		t.Errorf("first message stored as %q with context %q", stored[0].Content, stored[0].Context)
	}
}

// The opening stays in view: a window that has dropped the exchange that
// carried it gives it to the next new message, stored with it as the first
// was (so the turns after replay it), and no request ever holds it twice.
func TestSessionOpeningStaysInTheWindow(t *testing.T) {
	f := newChatFixture(t, true)
	f.notes()
	f.srv.Default(ollamatest.Text(cacheReply))
	f.oneShot("a session before, to quote")
	f.chat.NumCtx, f.chat.NumPredict = 3400, 256 // the window moves within 40 turns
	s, err := f.chat.StartSession(context.Background(), "long")
	if err != nil {
		t.Fatal(err)
	}
	before := len(f.srv.Requests())
	moves := 0
	for i := range 40 {
		f.now = f.now.Add(time.Minute)
		res, err := f.chat.Turn(context.Background(), &s, fmt.Sprintf("question %d about the trip", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range res.Layers {
			if l.Name == LayerHistory && l.Dropped > 0 {
				moves++
			}
		}
	}
	if moves == 0 {
		t.Fatal("the window never dropped an exchange: the test shows nothing")
	}
	for i, r := range f.srv.Requests()[before:] {
		n := 0
		for _, m := range r.Messages {
			if m.Role == "user" {
				n += strings.Count(m.Content, "[this conversation began ")
			}
		}
		if n != 1 {
			t.Errorf("request %d holds the session's opening %d times, want once", i+1, n)
		}
	}
}
