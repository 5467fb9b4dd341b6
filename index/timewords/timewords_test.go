package timewords

import (
	"testing"
	"time"
)

// Every phrase of issue 46 resolves to the days a person means, in the
// zone of now: Saturday 28 November 2026, 09:00 in Lisbon.
func TestFindPhrases(t *testing.T) {
	now := lisbonSaturday(t)
	checkFind(t, now, []findCase{
		{"what did I do yesterday?", "2026-11-27", "2026-11-27", "yesterday"},
		{"where did I have dinner last week", "2026-11-16", "2026-11-22", "last week"},
		{"who did I meet last Saturday?", "2026-11-21", "2026-11-21", "last Saturday"},
		{"what book did I finish in October?", "2026-10-01", "2026-10-31", "in October"},
		{"what happened on 3 November", "2026-11-03", "2026-11-03", "on 3 November"},
		{"what did I cook two weeks ago", "2026-11-11", "2026-11-17", "two weeks ago"},
		{"what did I note this morning", "2026-11-28", "2026-11-28", "this morning"},
		{"2026-11-23", "2026-11-23", "2026-11-23", "2026-11-23"},
		{"notes of 2026-10", "2026-10-01", "2026-10-31", "2026-10"},
		{"trip in December", "2025-12-01", "2025-12-31", "in December"},
		{"November 3rd, 2025 meeting", "2025-11-03", "2025-11-03", "November 3rd, 2025"},
		{"last month", "2026-10-01", "2026-10-31", "last month"},
		{"last weekend", "2026-11-21", "2026-11-22", "last weekend"},
		{"3 days ago", "2026-11-25", "2026-11-25", "3 days ago"},
		{"on Friday", "2026-11-27", "2026-11-27", "on Friday"},
	}, []string{"may I borrow the car", "march for climate", "sunday roast recipe", "room 5", "dentist", "2026-13-01"})
	// (Month names that are words, bare weekdays and numbers are not times.)
}

// findCase is a text and the days Find must read in it, from its words.
type findCase struct{ text, from, to, words string }

// lisbonSaturday is Saturday 28 November 2026, 09:00 in Lisbon.
func lisbonSaturday(t *testing.T) time.Time {
	zone, err := time.LoadLocation("Europe/Lisbon")
	if err != nil {
		t.Fatal(err)
	}
	return time.Date(2026, 11, 28, 9, 0, 0, 0, zone)
}

// checkFind checks Find on each phrase, and that none of the texts is a
// time.
func checkFind(t *testing.T, now time.Time, phrases []findCase, none []string) {
	t.Helper()
	for _, tc := range phrases {
		s, ok := Find(tc.text, now)
		if !ok || s.From != tc.from || s.To != tc.to || s.Words(tc.text) != tc.words {
			t.Errorf("Find(%q) = %+v %v (%q), want %s..%s from %q", tc.text, s, ok, s.Words(tc.text), tc.from, tc.to, tc.words)
		}
	}
	for _, text := range none {
		if s, ok := Find(text, now); ok {
			t.Errorf("Find(%q) = %+v (%q), want no time", text, s, s.Words(text))
		}
	}
}

// Resolved in now's zone: at 23:30 UTC on the 27th it is already the 28th
// in Tokyo, whose yesterday is the 27th.
func TestFindInUsersZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC)
	if s, _ := Find("yesterday", now.In(tokyo)); s.From != "2026-11-27" {
		t.Errorf("yesterday in Tokyo = %s, want 2026-11-27", s.From)
	}
	if s, _ := Find("yesterday", now); s.From != "2026-11-26" {
		t.Errorf("yesterday in UTC = %s, want 2026-11-26", s.From)
	}
}
