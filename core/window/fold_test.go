package window

import (
	"fmt"
	"strings"
	"testing"
)

// When every message is sent with a full recall (a quarter of the room),
// the window still holds several exchanges and moves rarely: older
// contexts are folded to their time. A turn that does not move the window
// sends anew only its message with its context and the exchanges it
// folds, which carry no passage any more; and no passage is ever in a
// request twice. The model reads a character a token here, as the
// project's tiny test model does, so the room is as small as it gets.
func TestFoldsKeepTheWindowLongAndTheCostFlat(t *testing.T) {
	in := baseInput()
	in.NumCtx, in.Reserve, in.CharsPerToken = 8192, 1024, 1
	var hits []Recalled
	for i := range 40 {
		hits = append(hits, Recalled{Path: fmt.Sprintf("logs/2026-10-%02d.md", i%28+1), StartLine: i + 1, EndLine: i + 3, Heading: fmt.Sprintf("Note %d", i),
			Text: fmt.Sprintf("note %d: %s", i, strings.Repeat(fmt.Sprintf("detail%d ", i), 20))})
	}
	var prev string
	var id int64
	moves, folds, extends, lastMove := 0, 0, 0, 0
	for turn := 1; turn <= 80; turn++ {
		in.Message = fmt.Sprintf("turn %d: what do my notes say about the trip and the garden?", turn)
		// Each turn recalls a different slice of the notes, so each context
		// is new and as large as the recall allows.
		in.Recalled = append(hits[turn%40:], hits[:turn%40]...)
		a, err := Assemble(in)
		if err != nil {
			t.Fatal(err)
		}
		if a.Total > in.NumCtx-in.Reserve {
			t.Fatalf("turn %d: %d tokens, over the budget %d", turn, a.Total, in.NumCtx-in.Reserve)
		}
		var hist Layer
		for _, l := range a.Layers {
			if l.Name == LayerHistory {
				hist = l
			}
		}
		if len(a.Recalled) < 3 {
			t.Fatalf("turn %d: only %d passages recalled", turn, len(a.Recalled))
		}
		req := RequestText(a.Messages)
		seen := map[string]int{}
		for _, m := range a.Messages {
			for _, h := range hits {
				if strings.Contains(m.Content, h.Text[:12]+" ") {
					seen[h.Text[:12]]++
				}
			}
		}
		for p, n := range seen {
			if n > 1 {
				t.Errorf("turn %d: passage %q is in the request %d times", turn, p, n)
			}
		}
		if turn > 1 {
			switch {
			case strings.HasPrefix(req, prev):
				extends++
			case a.WindowMoved:
				moves++
				if turn-lastMove < 5 {
					t.Errorf("turn %d: the window moved only %d turns after the last move", turn, turn-lastMove)
				}
				lastMove = turn
			default:
				// A fold: the request parts from the last one at an
				// exchange whose passages are now left out, and what follows
				// holds no passage but the new message's: the new message
				// and at most a few short exchanges.
				folds++
				at := SharedPrefix(prev, req)
				if strings.Count(req[at:], "<memory ") != len(a.Recalled) {
					t.Errorf("turn %d: a fold re-sends %d passages, want only the new message's %d", turn, strings.Count(req[at:], "<memory "), len(a.Recalled))
				}
				if fresh, msg := len(req)-at, len(a.Messages[len(a.Messages)-1].Content); fresh > msg+600 {
					t.Errorf("turn %d: %d bytes sent anew, %d beyond the new message", turn, fresh, fresh-msg)
				}
			}
			if turn > 20 && hist.Items < 10 {
				t.Errorf("turn %d: the window holds %d messages", turn, hist.Items)
			}
		}
		in.FoldBefore = a.FoldBefore // as chat stores it with the message
		id++
		in.History = append(in.History, StoredMessage{ID: id, Role: "user", Content: in.Message, Context: a.Context, RecallAt: a.RecallAt, Recalled: a.RecallRefs()})
		id++
		in.History = append(in.History, StoredMessage{ID: id, Role: "assistant", Content: fmt.Sprintf("Noted, turn %d.", turn)})
		prev = req + "assistant\x00" + fmt.Sprintf("Noted, turn %d.", turn) + "\x00"
	}
	t.Logf("79 later turns: %d extend the last request, %d fold, %d move the window", extends, folds, moves)
	if moves < 2 || moves > 16 || moves+folds+extends != 79 {
		t.Errorf("79 later turns: %d extend, %d fold, %d move", extends, folds, moves)
	}
}

// BenchmarkAssembleFullWindow is a turn's assembly with a window full of
// exchanges (num_ctx 16384, each message stored with a recall): the part
// of every turn that grows with what the window holds.
func BenchmarkAssembleFullWindow(b *testing.B) {
	in := baseInput()
	in.NumCtx, in.Reserve, in.CharsPerToken = 16384, 1024, 3.5
	ctx := "[sent Sun 22 Nov 2026 09:30]\n\n" + RecallHeader + "\n<memory source=\"logs/2026-11-20.md:3-5\">\n" + strings.Repeat("a note about the trip ", 20) + "\n</memory>\n"
	for i := range 400 {
		in.History = append(in.History,
			StoredMessage{ID: int64(2*i + 1), Role: "user", Content: fmt.Sprintf("question %d %s", i, strings.Repeat("word ", 30)), Context: ctx, RecallAt: len("[sent Sun 22 Nov 2026 09:30]")},
			StoredMessage{ID: int64(2*i + 2), Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, strings.Repeat("reply ", 60))})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assemble(in); err != nil {
			b.Fatal(err)
		}
	}
}
