package main

import (
	"strings"
	"testing"
)

func TestWrapWordsBreaksAtSpaces(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  []string
	}{
		{"the quick brown fox", 9, []string{"the quick", "brown fox"}},
		{"the  quick\nbrown", 0, []string{"the quick brown"}},
		{"東京 東京 東京", 9, []string{"東京 東京", "東京"}},
		{"\x1b[1mbold\x1b[0m word", 9, []string{"\x1b[1mbold\x1b[0m word"}},
		{"abcdefghij kl", 4, []string{"abcd", "efgh", "ij", "kl"}},
		{"", 10, []string{""}},
	} {
		if got := wrapWords(c.in, c.width); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestFitWidthsTakesFromTheWidest(t *testing.T) {
	got := fitWidths([]int{10, 20, 50}, []int{8, 11, 12}, 2, 60)
	if sum := got[0] + got[1] + got[2] + 4; sum != 60 || got[0] != 10 || got[1] != 20 {
		t.Errorf("fitWidths = %v (sum with gaps %d), want the last column cut to fit 60", got, sum)
	}
	if got := fitWidths([]int{10, 20}, []int{10, 20}, 2, 10); got[0] != 10 || got[1] != 20 {
		t.Errorf("fitWidths cut below the floors: %v", got)
	}
	if got := fitWidths([]int{10, 200}, []int{8, 8}, 2, 0); got[1] != 200 {
		t.Errorf("fitWidths cut with no terminal: %v", got)
	}
}

func TestFitCellMarksTheCut(t *testing.T) {
	if got := fitCell("東京 office hours", 8); got != "東京 of…" || displayWidth(got) != 8 {
		t.Errorf("fitCell = %q (%d columns)", got, displayWidth(got))
	}
	if got := fitCell("\x1b[31mdisabled after failures\x1b[0m", 10); got != "disabled …" {
		t.Errorf("fitCell with colour = %q", got)
	}
}
