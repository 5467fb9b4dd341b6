package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The line is redrawn at most once per interval, always for the last step,
// and erased at the end.
func TestProgressLine(t *testing.T) {
	var b strings.Builder
	p := &progressLine{w: &b, label: "agent: indexing", interval: time.Hour}
	p.set(1, 8)
	p.set(2, 8) // within the interval: not drawn
	p.set(7, 8)
	p.set(8, 8) // the last step: drawn
	p.clear()
	p.clear() // nothing left to erase
	want := "\r\x1b[Kagent: indexing 1/8 (12%)\r\x1b[Kagent: indexing 8/8 (100%)\r\x1b[K"
	if got := b.String(); got != want {
		t.Fatalf("terminal got %q\nwant %q", got, want)
	}
	var none strings.Builder
	(&progressLine{w: &none}).clear()
	if none.Len() != 0 {
		t.Fatalf("clear with nothing drawn wrote %q", none.String())
	}
}

// After a second the line says the rate and about how long is left.
func TestProgressLineSaysRateAndTimeLeft(t *testing.T) {
	var b strings.Builder
	clock := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	p := &progressLine{w: &b, label: "agent: importing", now: func() time.Time { return clock }}
	p.set(0, 4000)
	clock = clock.Add(10 * time.Second)
	p.set(500, 4000)
	clock = clock.Add(10 * time.Second)
	p.set(4000, 4000)
	want := "\r\x1b[Kagent: importing 0/4000 (0%)" +
		"\r\x1b[Kagent: importing 500/4000 (12%), 50/s, about 1m10s left" +
		"\r\x1b[Kagent: importing 4000/4000 (100%)"
	if got := b.String(); got != want {
		t.Fatalf("terminal got %q\nwant %q", got, want)
	}
}

// On a terminal a full reindex shows its progress on one line and leaves
// only its summary; in a pipe it writes the summary alone, no escapes.
func TestReindexProgressOnATerminalOnly(t *testing.T) {
	h := newHarness(t)
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	for d := 1; d <= 30; d++ {
		p := filepath.Join(h.home, "logs", fmt.Sprintf("2026-01-%02d.md", d))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# 2026-01-%02d\n\n## Notes\n\nDay %d of the trip.\n", d, d)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := h.runPTY("memory", "reindex", "--full")
	m := regexp.MustCompile(`agent: indexing (\d+)/(\d+) \(100%\)`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no final progress step on the terminal:\n%q", out)
	}
	last := strings.LastIndex(out, "\r\x1b[K")
	if last < strings.Index(out, m[0]) {
		t.Fatalf("the progress line is not erased after its last step:\n%q", out)
	}
	if rest := out[last+len("\r\x1b[K"):]; !strings.HasPrefix(rest, "agent: indexed 31 files") || strings.Contains(rest, "indexing") {
		t.Fatalf("after the progress line the terminal shows %q, want the summary alone", rest)
	}

	r := h.run("", "memory", "reindex", "--full")
	if r.code != 0 || strings.Contains(r.stderr, "indexing") || strings.Contains(r.stderr, "\x1b") || !strings.HasPrefix(r.stderr, "agent: indexed 31 files") {
		t.Fatalf("in a pipe: exit %d, stderr %q; want the summary alone", r.code, r.stderr)
	}
}
