package devsync

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Whatever two devices did to a file, every line either of them added
// (one the base does not hold) is in the merge, and no git marker is.
func TestMergeNeverLosesAnAddedLine(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 1))
	markdown := func() string {
		var b strings.Builder
		b.WriteString("# Memory\n")
		for range r.IntN(12) {
			if r.IntN(4) == 0 {
				fmt.Fprintf(&b, "\n## S%d\n\n", r.IntN(4))
			}
			fmt.Fprintf(&b, "- fact %d\n", r.IntN(20))
		}
		return b.String()
	}
	log := func() string {
		var b strings.Builder
		b.WriteString("# 2026-11-27\n")
		for range r.IntN(8) {
			fmt.Fprintf(&b, "\n### %02d:%02d\n\nnote %d\n", r.IntN(24), r.IntN(60), r.IntN(10))
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "more %d\n", r.IntN(5))
			}
		}
		return b.String()
	}
	// edit changes a version the way a device does: lines dropped,
	// changed, added.
	edit := func(s string) string {
		lines := strings.Split(s, "\n")
		var out []string
		for _, l := range lines {
			switch r.IntN(8) {
			case 0: // dropped
			case 1:
				out = append(out, l+" changed")
			case 2:
				out = append(out, l, fmt.Sprintf("- added %d", r.IntN(1000)))
			default:
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	for i := range 3000 {
		rel, gen := "MEMORY.md", markdown
		if i%2 == 1 {
			rel, gen = "logs/2026-11-27.md", log
		}
		base := gen()
		ours, theirs := edit(base), edit(base)
		var b []byte
		if i%5 != 0 { // every fifth without a base, as a conflict copy
			b = []byte(base)
		}
		got := string(Merge(rel, b, []byte(ours), []byte(theirs)).Data)
		in := map[string]bool{}
		for _, l := range strings.Split(got, "\n") {
			in[l] = true
		}
		inBase := map[string]bool{}
		if b != nil {
			for _, l := range strings.Split(base, "\n") {
				inBase[l] = true
			}
		}
		for _, side := range []string{ours, theirs} {
			for _, l := range strings.Split(side, "\n") {
				if strings.TrimSpace(l) != "" && !inBase[l] && !in[l] {
					t.Fatalf("%s: lost %q\nbase:\n%s\nours:\n%s\ntheirs:\n%s\nmerged:\n%s", rel, l, base, ours, theirs, got)
				}
			}
		}
		if strings.Contains(got, "<<<<<<<") || strings.Contains(got, ">>>>>>>") {
			t.Fatalf("a git marker in:\n%s", got)
		}
	}
}
