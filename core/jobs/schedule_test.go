package jobs

import (
	"strings"
	"testing"
	"time"
)

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNextAcrossDSTAndZones(t *testing.T) {
	berlin, ny, tokyo := mustLoad(t, "Europe/Berlin"), mustLoad(t, "America/New_York"), mustLoad(t, "Asia/Tokyo")
	cases := []struct {
		spec  string
		loc   *time.Location
		after string
		want  []string // successive due times, UTC
	}{
		// 08:00 on the wall clock: 07:00 UTC in winter, 06:00 UTC from the
		// last Sunday of March (2026-03-29).
		{"0 8 * * *", berlin, "2026-03-27T12:00:00Z", []string{"2026-03-28T07:00:00Z", "2026-03-29T06:00:00Z", "2026-03-30T06:00:00Z"}},
		// 02:30 does not exist in Berlin on 2026-03-29; the parser skips
		// that day rather than running at another hour.
		{"30 2 * * *", berlin, "2026-03-28T12:00:00Z", []string{"2026-03-30T00:30:00Z"}},
		// 01:30 happens twice in New York on 2026-11-01; it runs once.
		{"30 1 * * *", ny, "2026-10-31T12:00:00Z", []string{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}},
		// Weekly, Monday 03:00 in Tokyo is Sunday 18:00 UTC.
		{"0 3 * * 1", tokyo, "2026-11-24T00:00:00Z", []string{"2026-11-29T18:00:00Z", "2026-12-06T18:00:00Z"}},
		// "every" is elapsed time: a DST change does not stretch it.
		{"every 1h", berlin, "2026-03-29T00:30:00Z", []string{"2026-03-29T01:30:00Z", "2026-03-29T02:30:00Z"}},
		{"@daily", ny, "2026-11-01T03:00:00Z", []string{"2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"}},
	}
	for _, tc := range cases {
		s, err := ParseSchedule(tc.spec, tc.loc)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		at := utc(tc.after)
		for _, w := range tc.want {
			at = s.Next(at)
			if !at.Equal(utc(w)) {
				t.Errorf("%s in %s: got %s, want %s", tc.spec, tc.loc, at.Format(time.RFC3339), w)
				break
			}
		}
	}
}

func TestParseScheduleRefusals(t *testing.T) {
	for spec, says := range map[string]string{
		"":                   "empty schedule",
		"every 10s":          "at least 1m",
		"every soon":         "at least 1m",
		"0 8 * *":            "expected exactly 5 fields",
		"CRON_TZ=UTC @daily": "--tz",
		"61 * * * *":         "end of range",
	} {
		if _, err := ParseSchedule(spec, time.UTC); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseSchedule(%q) = %v, want %q", spec, err, says)
		}
	}
}

func TestWords(t *testing.T) {
	berlin := mustLoad(t, "Europe/Berlin")
	for spec, want := range map[string]string{
		"0 3 * * 1":      "weekly, Mon 03:00 Europe/Berlin",
		"0 3 * * mon":    "weekly, Mon 03:00 Europe/Berlin",
		"0 8 * * *":      "daily, 08:00 Europe/Berlin",
		"30 7 * * 1-5":   "weekdays, 07:30 Europe/Berlin",
		"0 9 1 * *":      "monthly, day 1 09:00 Europe/Berlin",
		"15 * * * *":     "hourly, at :15 Europe/Berlin",
		"@weekly":        "weekly, Sun 00:00 Europe/Berlin",
		"every 1h":       "every 1h",
		"@every 30m":     "every 30m",
		"*/5 9-17 * * *": `cron "*/5 9-17 * * *" Europe/Berlin`,
	} {
		s, err := ParseSchedule(spec, berlin)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := s.Words(); got != want {
			t.Errorf("%q: %q, want %q", spec, got, want)
		}
	}
}
