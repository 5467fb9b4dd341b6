package when

import (
	"testing"
	"time"
	_ "time/tzdata"
)

func TestFormatShowsTheZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err) // time/tzdata is linked in: the zone is always there
	}
	at := time.Date(2026, 11, 27, 7, 1, 0, 0, time.UTC)
	if got, want := Format(at, berlin), "Fri 2026-11-27 08:01 CET"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if got, want := Format(at, time.UTC), "Fri 2026-11-27 07:01 UTC"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}
