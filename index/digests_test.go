package index

import (
	"reflect"
	"testing"
)

func TestDropCitedTwice(t *testing.T) {
	hits := []Hit{
		{Path: "digests/2026-W47.md", Text: "- Booked flights. (logs/2026-11-20.md:4)"},              // its log chunk is a hit: dropped
		{Path: "logs/2026-11-20.md", StartLine: 3, EndLine: 5},                                       // the log chunk
		{Path: "digests/2026-W47.md", Text: "- Dentist moved. (logs/2026-11-21.md:4)"},               // its source is not a hit: kept
		{Path: "digests/2026-W47.md", Text: "- Flights and dentist (logs/2026-11-20.md:9-12)"},       // no overlap: kept
		{Path: "digests/2026-11.md", Text: "# Month 2026-11\n\nDistilled by agent."},                 // no citation: kept
		{Path: "logs/2026-11-22.md", StartLine: 1, EndLine: 2, Text: "(logs/2026-11-20.md:4) typed"}, // a log is never dropped
	}
	var got []string
	for _, h := range dropCitedTwice(hits) {
		got = append(got, h.Path+" "+h.Text)
	}
	want := []string{
		"logs/2026-11-20.md ",
		"digests/2026-W47.md - Dentist moved. (logs/2026-11-21.md:4)",
		"digests/2026-W47.md - Flights and dentist (logs/2026-11-20.md:9-12)",
		"digests/2026-11.md # Month 2026-11\n\nDistilled by agent.",
		"logs/2026-11-22.md (logs/2026-11-20.md:4) typed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
