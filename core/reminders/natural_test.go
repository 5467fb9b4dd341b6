package reminders

import (
	"testing"
	"time"

	"github.com/olebedev/when"
)

// natural must read every phrase exactly as when's own English parser does
// (when.EN: the English and common rules, distance 5, applied by order):
// the same phrase found at the same place, the same time, or nothing.
func TestNaturalMatchesWhen(t *testing.T) {
	phrases := []string{
		"tomorrow 9:00", "tomorrow at 9am", "fri 18:00", "friday at 6pm", "next friday 18:00",
		"in 2 hours", "in 90 minutes", "in 3 days", "in a week", "in half an hour",
		"tonight", "tonight at 8", "this evening", "this morning 7:30", "noon", "midnight",
		"today 17:45", "monday", "next monday 10am", "last monday", "on 4 december at 18:00",
		"december 4th 9:00", "4th of december", "12/04 9:00", "2 weeks from now", "yesterday 9:00",
		"at 5 pm on saturday", "sunday noon", "wed 8:15", "tuesday 10:30 or so", "soon",
		"call mom tomorrow 9:00", "buy milk", "", "   ", "9", "25:00", "tomorrow tomorrow",
		"in 2 hours and 30 minutes", "next week", "end of month", "the day after tomorrow 10:00",
		"🙂 tomorrow 9:00", "TOMORROW 9:00", "Fri 6PM", "in 1 hr", "in 45 mins", "at noon tomorrow",
	}
	bases := []time.Time{
		time.Date(2026, 11, 24, 22, 15, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 0, 0, time.FixedZone("X", -7*3600)),
		time.Date(2027, 2, 28, 6, 0, 0, 0, time.FixedZone("Y", 5*3600+1800)),
	}
	for _, base := range bases {
		for _, s := range phrases {
			want, werr := when.EN.Parse(s, base)
			got, gerr := naturalParser.Parse(s, base)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%q at %v: error %v, when's %v", s, base, gerr, werr)
				continue
			}
			if (want == nil) != (got == nil) {
				t.Errorf("%q at %v: result %+v, when's %+v", s, base, got, want)
				continue
			}
			if want == nil {
				continue
			}
			if got.Index != want.Index || got.Text != want.Text || !got.Time.Equal(want.Time) {
				t.Errorf("%q at %v: %d %q %v, when's %d %q %v", s, base, got.Index, got.Text, got.Time, want.Index, want.Text, want.Time)
			}
		}
	}
}
