package main

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"agent/core/when"
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

// TestTableKeepsTimesWhole: on a narrow terminal a table cuts its other
// columns, never one its caller says holds times (cut, "Fri 2026-11-27
// 15:08 …" has lost its zone, which item 4 of issue 37 wants shown), in
// whatever form the time is written: the table does not guess a time from
// its text (it did, by a pattern of when.Layout, and cut a time with
// seconds).
func TestTableKeepsTimesWhole(t *testing.T) {
	var out strings.Builder
	a := &app{io: &iostreams{Out: &out, OutTTY: true}} // 80 columns
	at := time.Date(2026, 11, 27, 14, 8, 0, 0, time.UTC)
	var times []string
	for _, zone := range []string{"Europe/Berlin", "Asia/Dubai"} { // CET, and "+04": a zone with no letters
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, when.Format(at, loc))
	}
	times = append(times, at.Format("Mon 2006-01-02 15:04:05 MST")) // a form the old pattern did not know
	tb := a.newTable("ID", "WHEN", "KEY", "CHANGE", "COMMAND").timed("WHEN")
	tb.row("1", times[0], "agent.name", `(unset) → "Atlas"`, "init")
	tb.row("4", times[1], "user.timezone", `(unset) → "Europe/Berlin"`, "profile set")
	tb.row("5", times[2], "user.name", `(unset) → "Ana Lúcia de Oliveira"`, "profile set")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n")[1:] {
		if !strings.Contains(line, times[i]+"  ") || displayWidth(line) > 80 {
			t.Errorf("line of %d columns, its time (%s) cut: %q", displayWidth(line), times[i], line)
		}
	}
}

// TestBeforeIsTheUsersMidnight: sessions delete --before DATE means
// midnight in the user's zone (the one every time is shown in), not the
// machine's; RFC 3339 keeps its own offset.
func TestBeforeIsTheUsersMidnight(t *testing.T) {
	kiritimati, err := time.LoadLocation("Pacific/Kiritimati") // UTC+14
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseBefore("2026-11-27", kiritimati)
	if want := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC); err != nil || !got.Equal(want) {
		t.Fatalf("parseBefore = %v, %v; want %v", got, err, want)
	}
	if got, _ := parseBefore("2026-11-27T08:00:00+01:00", kiritimati); !got.Equal(time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)) {
		t.Fatalf("RFC 3339 moved: %v", got)
	}
	if _, err := parseBefore("27/11", kiritimati); err == nil {
		t.Fatal("a date in another form was taken")
	}
}
