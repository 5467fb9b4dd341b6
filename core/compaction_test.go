package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"agent/core/compact"
	"agent/core/distill"
	"agent/core/ollamatest"
)

// citingModel answers a compaction prompt as a careful model would: one
// item per logged user line it is shown (but the small talk of lines
// starting "turn "), citing that line and quoting it.
// It also adds two items that must not survive the checks: one citing a
// line it was not shown, one quoting words its line does not hold.
type citingModel struct {
	prompts []string
}

func (m *citingModel) Generate(_ context.Context, req distill.Request) (distill.Reply, error) {
	m.prompts = append(m.prompts, req.Prompt)
	type item struct{ Text, Source, Quote string }
	var items []item
	path := ""
	last := 0
	for _, l := range strings.Split(req.Prompt, "\n") {
		if strings.HasPrefix(l, "=== ") {
			path = strings.Trim(l, "= ")
			continue
		}
		num, text, ok := strings.Cut(l, "| ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		last = n
		if user, ok := strings.CutPrefix(text, "**User:** "); ok && !strings.HasPrefix(user, "turn ") {
			items = append(items, item{Text: "The user said: " + user, Source: fmt.Sprintf("%s:%d", path, n), Quote: user})
		}
	}
	items = append(items,
		item{Text: "Something from a line not shown.", Source: fmt.Sprintf("%s:%d", path, last+3), Quote: "Noted, with"},
		item{Text: "A quote that is not there.", Source: fmt.Sprintf("%s:%d", path, last), Quote: "the moon is made of cheese"})
	b, err := json.Marshal(map[string]any{"items": items})
	return distill.Reply{Content: string(b)}, err
}

// The gym-locker conversation of issue 25: a fact said at turn 1, then 30
// turns, so the window drops it; compaction puts it back at the start of
// the window, in a line citing the logged turn, and keeps it there.
func TestCompactSummarisesWhatTheWindowDropped(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	f.chat.Sessions = NewSessions(f.ws.State, f.chat.Now) // the session's day is the logs' day
	f.chat.NumCtx = 4096
	f.srv.Default(ollamatest.Text("Noted, with a long enough answer to fill the window a little faster than a short one would, and then some more words about trips, gardens, books and cars."))
	s := f.session("gym")
	turn := func(msg string) {
		t.Helper()
		if _, err := f.chat.Turn(ctx, s, msg, nil); err != nil {
			t.Fatal(err)
		}
	}
	turn("my gym locker code is 4417, locker 38 at the Vila Nova gym")
	for i := 0; i < 30; i++ {
		turn(fmt.Sprintf("turn %d: let us talk about the garden, the tulips by the blue door and the compost heap number %d", i, i))
	}
	asm, err := f.chat.Assemble(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if asm.WindowStart == f.messages(s)[0].ID {
		t.Fatal("the window was not cut; the test needs a longer session")
	}

	// Ollama down: exit 4 upstream, nothing stored.
	down := ollamatest.New(t)
	down.Close()
	t.Setenv("OLLAMA_HOST", down.Host())
	o, err := NewOllama(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.chat.Compact(ctx, s, DistillModel{Model: o, Name: f.chat.ModelName}, nil); !errors.Is(err, ErrModelUnavailable) {
		t.Fatalf("Ollama down: err = %v, want ErrModelUnavailable", err)
	}
	if _, ok, err := compact.Load(ctx, f.ws.State, s.ID); ok || err != nil {
		t.Fatalf("Ollama down stored a summary (ok %v, err %v)", ok, err)
	}

	m := &citingModel{}
	res, err := f.chat.Compact(ctx, s, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Logged != res.Turns || res.Turns == 0 {
		t.Errorf("%d dropped turns, %d found in the logs", res.Turns, res.Logged)
	}
	if res.Items.Dropped[distill.DropQuote] != 2*res.Parts {
		t.Errorf("dropped %v: want the line not shown and the wrong quote dropped in each of %d parts", res.Items.Dropped, res.Parts)
	}
	for _, p := range m.prompts {
		if strings.Contains(p, "**User:** "+strings.TrimSpace(f.messages(s)[len(f.messages(s))-2].Content)) {
			t.Error("the model was shown a turn the window still carries")
		}
	}
	if !strings.Contains(res.Text, "4417") || !strings.Contains(res.Text, "(logs/2026-11-22.md:") {
		t.Fatalf("summary lacks the cited fact:\n%s", res.Text)
	}

	// The window the summary opens is the one it summarised: compacting
	// again at once has nothing to do.
	if _, err := f.chat.Compact(ctx, s, m, nil); !errors.Is(err, compact.ErrNothing) {
		t.Errorf("second compaction: err = %v, want ErrNothing", err)
	}

	// The summary opens the window, as a user message (never a system one),
	// and stays byte-identical from turn to turn.
	turn("and what about the roses?")
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Messages[3].Role != "user" || !strings.Contains(last.Messages[3].Content, "<summary turns=") || !strings.Contains(last.Messages[3].Content, "4417") {
		t.Fatalf("message 3 is not the summary: %s %q", last.Messages[3].Role, clipTest(last.Messages[3].Content))
	}
	turn("and the tulips?")
	reqs = f.srv.Requests()
	if reqs[len(reqs)-1].Messages[3].Content != last.Messages[3].Content {
		t.Error("the summary changed between two turns without a compaction")
	}
	asm, err = f.chat.Assemble(ctx, s, "what is my gym locker code?")
	if err != nil {
		t.Fatal(err)
	}
	if asm.Layers[3].Name != LayerSummary || !strings.HasPrefix(asm.Layers[3].Source, "compacted ") {
		t.Errorf("layer 3 = %+v, want the summary", asm.Layers[3])
	}

}

// A reply with no valid line stores nothing; neither does a session with
// nothing dropped.
func TestCompactStoresNothingInvalid(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	f.chat.Sessions = NewSessions(f.ws.State, f.chat.Now)
	f.srv.Default(ollamatest.Text("ok"))
	s := f.session("short")
	if _, err := f.chat.Turn(ctx, s, "hello there", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.chat.Compact(ctx, s, &citingModel{}, nil); !errors.Is(err, compact.ErrNothing) {
		t.Errorf("nothing dropped: err = %v, want ErrNothing", err)
	}
	f.chat.NumCtx = 3400 // ~800 of them for the built-in tool list
	f.srv.Default(ollamatest.Text(strings.Repeat("a long reply about nothing much ", 40)))
	for i := 0; i < 8; i++ {
		if _, err := f.chat.Turn(ctx, s, fmt.Sprintf("question %d about the long reply", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	bad := distillFunc(func(distill.Request) string {
		return `{"items":[{"text":"An uncited line.","source":"","quote":""},{"text":"Invented.","source":"logs/2026-11-22.md:1","quote":"never said"}]}`
	})
	if _, err := f.chat.Compact(ctx, s, bad, nil); !errors.Is(err, compact.ErrInvalid) {
		t.Fatalf("invalid reply: err = %v, want ErrInvalid", err)
	}
	if _, ok, _ := compact.Load(ctx, f.ws.State, s.ID); ok {
		t.Error("an invalid summary was stored")
	}
}

// sharedMessages is how many messages two wire requests begin with alike.
func sharedMessages(a, b []string) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

type distillFunc func(distill.Request) string

func (fn distillFunc) Generate(_ context.Context, req distill.Request) (distill.Reply, error) {
	return distill.Reply{Content: fn(req)}, nil
}

// With AutoCompact (off by default) a turn whose window moves compacts
// first; the turns between two moves run none. The summary opens that
// turn's own request, so the next turn extends it: a move costs the model
// one evaluation of the history, not two.
func TestAutoCompactWhenTheWindowMoves(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	f.chat.Sessions = NewSessions(f.ws.State, f.chat.Now)
	f.chat.NumCtx = 4900 // ~800 of them for the built-in tool list
	reply := "Noted, with a long enough answer to fill the window a little faster than a short one would, and then some more words about trips, gardens, books and cars."
	f.srv.Default(ollamatest.Text(reply))
	s := f.session("auto")
	turn := func(msg string) *TurnResult {
		t.Helper()
		res, err := f.chat.Turn(ctx, s, msg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	dropped := func(res *TurnResult) int {
		for _, l := range res.Layers {
			if l.Name == LayerHistory {
				return l.Dropped
			}
		}
		return 0
	}
	turn("my gym locker code is 4417, locker 38 at the Vila Nova gym")
	var res *TurnResult
	for i := 0; i < 30; i++ {
		res = turn(fmt.Sprintf("turn %d: the garden, the tulips by the blue door and the compost heap number %d", i, i))
	}
	if _, ok, _ := compact.Load(ctx, f.ws.State, s.ID); ok {
		t.Fatal("a compaction ran with AutoCompact off")
	}
	m := &citingModel{}
	f.chat.AutoCompact, f.chat.CompactModel = true, m
	compacted, moves, prev := 0, 0, dropped(res)
	var movedAt, compactedAt []bool
	for i := 30; i < 90; i++ {
		res := turn(fmt.Sprintf("turn %d: the garden, the tulips by the blue door and the compost heap number %d", i, i))
		moved := dropped(res) != prev
		prev = dropped(res)
		if moved {
			moves++
		}
		did := false
		for _, n := range res.Notices {
			if !strings.HasPrefix(n, "auto-compaction: ") {
				continue
			}
			compacted++
			did = strings.Contains(n, "summarised")
			if !moved {
				t.Errorf("turn %d: a compaction though the window did not move: %s", i, n)
			}
		}
		movedAt, compactedAt = append(movedAt, moved), append(compactedAt, did)
	}
	if compacted == 0 || len(m.prompts) < compacted || compacted > moves || moves > 30 {
		t.Errorf("%d compactions (%d model calls), %d window moves in 60 turns", compacted, len(m.prompts), moves)
	}
	reqs := f.srv.Requests()
	reqs = reqs[len(reqs)-60:]
	checked := 0
	for i := range 59 {
		if !compactedAt[i] {
			continue
		}
		if !strings.HasPrefix(reqs[i].Messages[3].Content, summaryHeader) {
			t.Errorf("turn %d compacted, but its request does not open with the summary: %q", 30+i, clipTest(reqs[i].Messages[3].Content))
		}
		if !movedAt[i+1] {
			// The next turn keeps the summary and the window's start (it may
			// fold the window's newest recall, far below them).
			checked++
			p, n := wire(reqs[i]), wire(reqs[i+1])
			if at := sharedMessages(p, n); at < 6 {
				t.Errorf("turn %d after a compaction changes its request at message %d: %s", 31+i, at, firstDifference(reqs[i], reqs[i+1]))
			}
		}
	}
	if checked == 0 {
		t.Error("no compaction was followed by a turn to check")
	}
	sum, ok, err := compact.Load(ctx, f.ws.State, s.ID)
	if err != nil || !ok || !strings.Contains(sum.Text(), "4417") {
		t.Fatalf("no summary stored (ok %v, err %v): %q", ok, err, sum.Text())
	}
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[3].Content, "4417") {
		t.Errorf("the last request does not open with the summary: %q", clipTest(last.Messages[3].Content))
	}
}

// What compaction cannot do it refuses before asking the model, storing
// nothing: turns chatted with --no-log are not in the logs it cites, and a
// num_ctx whose summary room is too small for a line is refused by name.
func TestCompactRefusesWhatItCannotDo(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	f.chat.Sessions = NewSessions(f.ws.State, f.chat.Now)
	f.srv.Default(ollamatest.Text(strings.Repeat("a long reply about nothing much ", 40)))
	s := f.session("quiet")
	f.chat.NumCtx, f.chat.NoLog = 4900, true
	turns := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if _, err := f.chat.Turn(ctx, s, fmt.Sprintf("question %d about the long reply", i), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	turns(8)
	m := &citingModel{}
	_, err := f.chat.Compact(ctx, s, m, nil)
	if !errors.Is(err, compact.ErrNothing) || !strings.Contains(err.Error(), "is in the logs") {
		t.Errorf("turns not logged: err = %v, want ErrNothing naming the logs", err)
	}
	if len(m.prompts) != 0 {
		t.Errorf("the model was asked %d times about turns it could not cite", len(m.prompts))
	}

	f.chat.NoLog = false
	turns(8)
	f.chat.NumPredict = 64
	refused := 0
	for numCtx := 4900; numCtx >= 1000; numCtx -= 25 {
		f.chat.NumCtx = numCtx
		_, err := f.chat.Compact(ctx, s, distillFunc(func(distill.Request) string { return `{"items":[]}` }), nil)
		if errors.Is(err, ErrContextTooSmall) {
			break
		}
		if errors.Is(err, compact.ErrInvalid) && strings.Contains(err.Error(), "leaves the summary no room") {
			refused = numCtx
			break
		}
	}
	if refused == 0 {
		t.Fatal("no num_ctx between 4900 and the fixed layers' size was refused for the summary's room")
	}
	if _, ok, _ := compact.Load(ctx, f.ws.State, s.ID); ok {
		t.Error("a summary was stored")
	}
	t.Logf("the summary's room refused at num_ctx %d", refused)
}
