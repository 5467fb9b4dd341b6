package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"agent/core/forget"
)

// TestForgetShowsTheLine (issue 48 item 5): before it asks, forget shows
// each place's line with the phrase marked — reversed on a colour
// terminal, «…» under NO_COLOR — cut around it to the terminal's width;
// piped --json carries the whole line unmarked and where the phrase is in
// it. A bullet that held only the phrase stays as "- [forgotten]", and the
// listing says so before it is asked.
func TestForgetShowsTheLine(t *testing.T) {
	t.Parallel()
	const phrase = "Qx7HeronSecret"
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	long := strings.Repeat("before the words ", 6) + phrase + strings.Repeat(" and after them", 6)
	h.must("", "-q", "log", long)
	h.must("", "-q", "memory", "add", phrase)

	p := h.startPTYCols(60, nil, "forget", "--dry-run", phrase)
	p.expectEOF()
	out := p.all()
	if !strings.Contains(out, "\x1b[7m"+phrase+"\x1b[0m") {
		t.Errorf("the phrase is not marked on a colour terminal:\n%q", out)
	}
	if !strings.Contains(out, "… \x1b[7m") && !strings.Contains(out, "words \x1b[7m") {
		t.Errorf("the long line does not show the words around the phrase:\n%q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if i := strings.LastIndex(l, "\x1b[K"); i >= 0 { // after the progress line's redraws
			l = l[i+len("\x1b[K"):]
		}
		if w := displayWidth(strings.TrimRight(l, "\r")); w > 60 {
			t.Errorf("a line of %d columns on a terminal of 60: %q", w, l)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "it stays as - [forgotten]") {
		t.Errorf("the bullet that held only the phrase is not said to stay as - [forgotten]:\n%s", out)
	}

	p = h.startPTYCols(60, []string{"NO_COLOR=1"}, "forget", "--dry-run", phrase)
	p.expectEOF()
	if out := p.all(); !strings.Contains(out, "«"+phrase+"»") || strings.Contains(out, "\x1b[7m") {
		t.Errorf("under NO_COLOR the phrase is not marked «…»:\n%q", out)
	}

	out = h.must("", "--json", "forget", "--dry-run", phrase)
	var got struct{ Places []forget.Place }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := 0
	for _, pl := range got.Places {
		if pl.Kind != "file" || pl.Text == "" {
			continue
		}
		seen++
		if len(pl.Match) != 1 || pl.Text[pl.Match[0].Start:pl.Match[0].End] != phrase || strings.Contains(pl.Text, "«") {
			t.Errorf("%s:%d: text %q, match %v", pl.Path, pl.Line, pl.Text, pl.Match)
		}
		if strings.HasPrefix(pl.Path, "logs/") && !strings.Contains(pl.Text, long) {
			t.Errorf("--json cut the line: %q", pl.Text)
		}
	}
	if seen < 2 {
		t.Errorf("--json shows %d file lines, want the log's and MEMORY.md's:\n%s", seen, out)
	}

	h.must("", "-q", "forget", "--yes", phrase)
	b, err := os.ReadFile(filepath.Join(h.home, "MEMORY.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "- [forgotten]\n") {
		t.Errorf("MEMORY.md after the forget:\n%s", b)
	}
}

// TestForgetExcerptCuts: the cut keeps the first occurrence in view with
// words on both sides, and a phrase wider than the terminal shows its head.
func TestForgetExcerptCuts(t *testing.T) {
	a := &app{io: &iostreams{OutTTY: true}}
	text := strings.Repeat("x", 100) + "PHRASE" + strings.Repeat("y", 100)
	pl := forget.Place{Text: text, Match: []forget.Span{{Start: 100, End: 106}}}
	got := a.forgetExcerpt(pl, 40)
	if !strings.HasPrefix(got, "…x") || !strings.Contains(got, "«PHRASE»y") || !strings.HasSuffix(got, "y…") {
		t.Errorf("cut around the phrase: %q", got)
	}
	if n := utf8.RuneCountInString(got) - 2; n != 40-len(forgetIndent) { // the marks take two
		t.Errorf("%d columns, want %d: %q", n, 40-len(forgetIndent), got)
	}
	pl = forget.Place{Text: "ab" + strings.Repeat("P", 80), Match: []forget.Span{{Start: 2, End: 82}}}
	if got := a.forgetExcerpt(pl, 20); !strings.HasPrefix(got, "…«PPP") || !strings.HasSuffix(got, "P»…") {
		t.Errorf("a phrase wider than the terminal: %q", got)
	}
	if got := a.forgetExcerpt(forget.Place{Text: "short PHRASE", Match: []forget.Span{{Start: 6, End: 12}}}, 80); got != "short «PHRASE»" {
		t.Errorf("a short line: %q", got)
	}
}
