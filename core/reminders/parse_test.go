package reminders

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones are there on every machine
)

func TestParse(t *testing.T) {
	berlin := mustLoad(t, "Europe/Berlin")
	// Friday 27 November 2026, 10:30 in Berlin.
	now := time.Date(2026, 11, 27, 10, 30, 0, 0, berlin)
	good := []struct{ in, want string }{
		{"+2h", "2026-11-27T12:30:00+01:00"},
		{"+1s", "2026-11-27T10:30:01+01:00"},
		{"+1h30m", "2026-11-27T12:00:00+01:00"},
		{"+2d", "2026-11-29T10:30:00+01:00"},
		{"+1w", "2026-12-04T10:30:00+01:00"},
		{"tomorrow 9:00", "2026-11-28T09:00:00+01:00"},
		{"fri 18:00", "2026-12-04T18:00:00+01:00"},
		{"monday 9am", "2026-11-30T09:00:00+01:00"},
		{"at noon", "2026-11-27T12:00:00+01:00"},
		{"in 2 hours", "2026-11-27T12:30:00+01:00"},
		// As people say them (issue 48): the natural parser refused or
		// misread each; a time of day already past today is tomorrow's.
		{"tomorrow at 9", "2026-11-28T09:00:00+01:00"},
		{"tomorrow 9", "2026-11-28T09:00:00+01:00"},
		{"Tomorrow at 9:15", "2026-11-28T09:15:00+01:00"},
		{"at 9", "2026-11-28T09:00:00+01:00"},
		{"9am", "2026-11-28T09:00:00+01:00"},
		{"9:00", "2026-11-28T09:00:00+01:00"},
		{"at 11", "2026-11-27T11:00:00+01:00"},
		{"3pm", "2026-11-27T15:00:00+01:00"},
		{"tonight", "2026-11-27T20:00:00+01:00"},
		{"tonight at 9", "2026-11-27T21:00:00+01:00"},
		{"next monday at noon", "2026-11-30T12:00:00+01:00"},
		{"friday at 6pm", "2026-12-04T18:00:00+01:00"},
		{"in 20 minutes", "2026-11-27T10:50:00+01:00"},
		{"today at 17:30", "2026-11-27T17:30:00+01:00"},
		{"2026-12-04T18:00", "2026-12-04T18:00:00+01:00"},
		{"2026-12-04 18:00", "2026-12-04T18:00:00+01:00"},
		{"2026-12-04T18:00:00Z", "2026-12-04T18:00:00Z"},
		{"2026-12-04T18:00:00-05:00", "2026-12-04T18:00:00-05:00"},
		// Summer time: the same clock reading has another offset.
		{"2027-07-01T09:00", "2027-07-01T09:00:00+02:00"},
	}
	for _, tc := range good {
		got, err := Parse(tc.in, now, berlin)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		want, _ := time.Parse(time.RFC3339, tc.want)
		if !got.Equal(want) {
			t.Errorf("Parse(%q) = %s, want %s", tc.in, got.In(berlin).Format(time.RFC3339), tc.want)
		}
	}
	bad := []struct{ in, says string }{
		{"", "empty time"},
		{"call mom", "could not read a time"},
		{"tomorrow", `"tomorrow" has no time of day: understood Sat 2026-11-28`},
		{"fri", "has no time of day"},
		{"tomorrow at nine", `understood only "tomorrow"`},
		{"at 25", "could not read a time"},
		{"today at 9", "is in the past"},
		{"2026-12-04", "a date without a time of day"},
		{"+0s", "not a duration from now"},
		{"+soon", "not a duration from now"},
		{"today 9:00", `"today 9:00" is in the past: understood as Fri 2026-11-27 09:00 CET`},
		{"2026-11-20T18:00", "is in the past"},
		{"2020-01-01T00:00:00Z", "is in the past"},
	}
	for _, tc := range bad {
		_, err := Parse(tc.in, now, berlin)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid saying %q", tc.in, err, tc.says)
		}
	}
}

func TestParseInOtherZones(t *testing.T) {
	// The same instant is a different day west and east of the date line.
	instant := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	west, east := mustLoad(t, "Etc/GMT+12"), mustLoad(t, "Pacific/Kiritimati")
	w, err := Parse("tomorrow 9:00", instant, west)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse("tomorrow 9:00", instant, east)
	if err != nil {
		t.Fatal(err)
	}
	if w.In(west).Format("2006-01-02 15:04") != "2026-11-28 09:00" || e.In(east).Format("2006-01-02 15:04") != "2026-11-29 09:00" {
		t.Fatalf("west %s, east %s", w.In(west), e.In(east))
	}
}

func TestParseISO(t *testing.T) {
	loc := mustLoad(t, "Europe/Berlin")
	now := time.Date(2026, 11, 27, 10, 30, 0, 0, loc)
	if got, err := ParseISO("2026-11-28T09:00:00+01:00", now, loc); err != nil || got.UTC().Hour() != 8 {
		t.Fatalf("got %v %v", got, err)
	}
	for in, says := range map[string]string{
		"2026-11-28T09:00":          "not an ISO 8601 time with an offset, e.g. 2026-11-27T11:30:00+01:00",
		"tomorrow":                  "not an ISO 8601 time with an offset",
		"2026-11-26T09:00:00+01:00": "is in the past",
	} {
		if _, err := ParseISO(in, now, loc); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseISO(%q) = %v, want %q", in, err, says)
		}
	}
}

// A snooze keeps a reminder's date unless told otherwise: "+1h" or "9:30"
// on a reminder still ahead counts from its due time (`reminders snooze 13
// +1h` once moved tomorrow's 08:00 to today 09:02); a day named, or a
// reminder already due, counts from now.
func TestSnoozeKeepsTheRemindersDate(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 8, 2, 0, 0, loc)
	tomorrow8 := time.Date(2026, 11, 28, 8, 0, 0, 0, loc)
	overdue := time.Date(2026, 11, 27, 7, 0, 0, 0, loc)
	for _, c := range []struct {
		when string
		due  time.Time
		want time.Time
	}{
		{"+1h", tomorrow8, time.Date(2026, 11, 28, 9, 0, 0, 0, loc)},
		{"+1d", tomorrow8, time.Date(2026, 11, 29, 8, 0, 0, 0, loc)},
		{"9:30", tomorrow8, time.Date(2026, 11, 28, 9, 30, 0, 0, loc)},
		{"tomorrow 18:00", tomorrow8, time.Date(2026, 11, 28, 18, 0, 0, 0, loc)},
		{"2026-12-01T10:00", tomorrow8, time.Date(2026, 12, 1, 10, 0, 0, 0, loc)},
		{"+1h", overdue, now.Add(time.Hour)},
	} {
		got, err := ParseSnooze(c.when, now, c.due, loc)
		if err != nil {
			t.Errorf("snooze %q (due %s): %v", c.when, c.due, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("snooze %q (due %s) = %s, want %s", c.when, c.due, got, c.want)
		}
	}
	if _, err := ParseSnooze("yesterday 9:00", now, tomorrow8, loc); err == nil {
		t.Error("a snooze into the past was taken")
	}
}

// A time said at the end of a reminder's words is split off; a bare
// number or words with no time are left as the text.
func TestSplitTrailingTime(t *testing.T) {
	berlin := mustLoad(t, "Europe/Berlin")
	now := time.Date(2026, 11, 27, 10, 30, 0, 0, berlin)
	for _, c := range []struct{ in, text, at, due string }{
		{"call mom tomorrow at 9", "call mom", "tomorrow at 9", "2026-11-28T09:00:00+01:00"},
		{"stretch in 20 minutes", "stretch", "in 20 minutes", "2026-11-27T10:50:00+01:00"},
		{"water the plants tonight", "water the plants", "tonight", "2026-11-27T20:00:00+01:00"},
		{"pay rent next monday at noon", "pay rent", "next monday at noon", "2026-11-30T12:00:00+01:00"},
		{"read chapter 9", "", "", ""},
		{"call mom", "", "", ""},
		{"tomorrow at 9", "", "", ""}, // no words left for the reminder
	} {
		text, at, due, ok := SplitTrailingTime(c.in, now, berlin)
		if c.at == "" {
			if ok {
				t.Errorf("%q: split as %q at %q", c.in, text, at)
			}
			continue
		}
		if !ok || text != c.text || at != c.at || due.Format(time.RFC3339) != c.due {
			t.Errorf("%q: got %q, %q, %s, %v; want %q, %q, %s", c.in, text, at, due.Format(time.RFC3339), ok, c.text, c.at, c.due)
		}
	}
}
