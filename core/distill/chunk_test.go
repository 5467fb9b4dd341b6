package distill_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"agent/core/distill"
)

// A line longer than a whole chunk is cut to fit the chunk, "…" and its
// header included (it came out 2 bytes over, and its cut went uncounted or
// was counted in the chunk before), on a character boundary.
func TestLongLineCutWithinTheChunk(t *testing.T) {
	for _, line := range []string{strings.Repeat("x", 500), strings.Repeat("é", 300), strings.Repeat("e\u0301", 200)} {
		const most = 100
		for _, before := range [][]string{nil, {"a short line first"}} {
			lines := append(before, line)
			chunks := distill.ChunkSources([]distill.Source{{Path: "logs/2026-11-18.md", Lines: lines}}, most)
			if len(chunks) != len(lines) {
				t.Fatalf("%d chunks (%+v), want %d", len(chunks), chunks, len(lines))
			}
			for i, c := range chunks {
				last := i == len(chunks)-1
				if want := map[bool]int{false: 0, true: 1}[last]; c.Cut != want {
					t.Errorf("chunk %d of %d counts %d cut lines, want %d", i+1, len(chunks), c.Cut, want)
				}
				if last && (!strings.HasSuffix(c.Text, "…\n") || strings.Contains(line, "\u0301") && strings.HasSuffix(c.Text, "e…\n")) {
					t.Errorf("chunk %d not cut between characters: %q", i+1, c.Text)
				}
				if len(c.Text) > most || !utf8.ValidString(c.Text) {
					t.Errorf("chunk of %d bytes (at most %d), valid UTF-8 %v: %q", len(c.Text), most, utf8.ValidString(c.Text), c.Text)
				}
			}
		}
	}
}
