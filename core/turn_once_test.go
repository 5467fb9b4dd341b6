package core

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agent/core/compact"
	"agent/core/ollamatest"
	"agent/core/skills"
)

// counter counts what a turn reads through the interfaces a Chat is given.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[what]++
}

func (c *counter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

type countedRecall struct {
	Recaller
	c *counter
}

func (r countedRecall) Recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	r.c.add("recall")
	return r.Recaller.Recall(ctx, text, k)
}

type countedIdentity struct {
	IdentitySource
	name string
	c    *counter
}

func (s countedIdentity) Identity(ctx context.Context, today time.Time) ([]IdentityBlock, error) {
	s.c.add("identity " + s.name)
	return s.IdentitySource.Identity(ctx, today)
}

// A turn gathers what it needs once: one recall, one read of each identity
// source, even on a turn whose window moves and which compacts first (the
// compaction's summary is fitted into the state the turn gathered, not
// gathered again). It builds the tool list once and marshals it once (to
// measure it; no integration here), redacts each of its texts once (the
// message, the reply, the context kept with the message, the agent's name
// in the log, each other message of the request), discovers the skills
// once for both lengths of their lines, fences each recalled passage
// once and joins each past exchange's message once, in each form it is
// replayed in (the Chat's count and the skills source's discover).
func TestTurnGathersOnceEvenWhenItCompacts(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	f.chat.Sessions = NewSessions(f.ws.State, f.chat.Now) // the session's day is the logs' day
	f.chat.NumCtx = 4900                                  // ~800 of them for the built-in tool list
	f.srv.Default(ollamatest.Text("Noted, with a long enough answer to fill the window a little faster than a short one would, and then some more words about trips, gardens, books and cars."))
	n := &counter{n: map[string]int{}}
	f.chat.Memory = countedRecall{f.mem, n}
	// A skill, so that the skills' lines are rendered at both lengths.
	writeFileT(t, filepath.Join(f.home, "skills", "compost", "SKILL.md"), "---\nname: compost\ndescription: turns the heap\n---\nbody\n")
	f.chat.Identity[0] = skillsIdentity{f.home, func(roots []skills.Root) skills.Catalog {
		n.add("skills.Discover")
		return skills.Discover(roots)
	}}
	for i, src := range f.chat.Identity {
		f.chat.Identity[i] = countedIdentity{src, fmt.Sprint(i), n}
	}
	f.chat.AutoCompact, f.chat.CompactModel = true, &citingModel{}
	f.chat.count = n.add
	s := f.session("once")
	compacted, joins := 0, 0
	for i := range 45 {
		res, err := f.chat.Turn(ctx, s, fmt.Sprintf("note %d: the garden, the tulips by the blue door and the compost heap number %d", i, i), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, note := range res.Notices {
			if strings.HasPrefix(note, "auto-compaction: ") && strings.Contains(note, "summarised") {
				compacted++
			}
		}
		got := n.take()
		// The layers before the history (prompt, SOUL.md, profile, a
		// summary) are redacted one by one, each once; the replayed
		// history is not again (state.db keeps it redacted), however long;
		// the recalled passages once when there are any.
		reqs := f.srv.Requests()
		if sent := len(reqs[len(reqs)-1].Messages) - 1; got["redact layer"] > 4 || got["redact layer"] < 3 || sent < 6 && i > 2 {
			t.Errorf("turn %d: %d of the request's %d other messages redacted, want the 3 or 4 layers", i, got["redact layer"], sent)
		}
		if got["redact recalled"] > 1 {
			t.Errorf("turn %d: recalled passages redacted %d times", i, got["redact recalled"])
		}
		delete(got, "redact layer")
		delete(got, "redact recalled")
		for k, times := range got { // each recalled passage fenced once, each past exchange joined once
			if strings.HasPrefix(k, "fence ") || strings.HasPrefix(k, "join ") {
				if strings.HasPrefix(k, "join ") {
					joins++
				}
				if times != 1 {
					t.Errorf("turn %d: %s: %d times", i, k, times)
				}
				delete(got, k)
			}
		}
		want := map[string]int{"recall": 1, "tool specs": 1, "tools marshalled": 1,
			"redact message": 1, "redact reply": 1, "redact context": 1, "redact name": 1, "skills.Discover": 1}
		for k := range f.chat.Identity {
			want[fmt.Sprintf("identity %d", k)] = 1
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("turn %d read %v, want %v", i, got, want)
		}
	}
	if _, ok, _ := compact.Load(ctx, f.ws.State, s.ID); !ok || compacted == 0 || joins == 0 {
		t.Fatalf("%d turns compacted, %d exchanges joined: the test proves nothing", compacted, joins)
	}
}
