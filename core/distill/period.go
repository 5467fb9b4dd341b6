// Package distill turns the daily logs into weekly and monthly digests
// (digests/2026-W47.md, digests/2026-11.md) and proposes durable facts for
// MEMORY.md. Every line it writes cites the log lines it came from, and every
// citation is checked against the files before anything is written: what a
// model invents is dropped and counted, never stored.
package distill

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Kinds of period.
const (
	Week  = "week"
	Month = "month"
)

// DigestsDir is where digests live, relative to the workspace.
const DigestsDir = "digests"

// Period is one ISO week or one calendar month: the logs dated from Start
// (inclusive) to End (exclusive).
type Period struct {
	Kind  string    // Week or Month
	Key   string    // "2026-W47" or "2026-11"
	Start time.Time // midnight UTC of the first day
	End   time.Time // midnight UTC of the day after the last
}

// Path is the digest's workspace-relative path.
func (p Period) Path() string { return DigestsDir + "/" + p.Key + ".md" }

// Date is the first day of the period, the date the index gives the digest.
func (p Period) Date() string { return p.Start.Format(time.DateOnly) }

// Last is the period's last day.
func (p Period) Last() string { return p.End.AddDate(0, 0, -1).Format(time.DateOnly) }

// Contains reports whether the day (YYYY-MM-DD) falls in the period.
func (p Period) Contains(day string) bool {
	d, err := time.Parse(time.DateOnly, day)
	return err == nil && !d.Before(p.Start) && d.Before(p.End)
}

// WeekOf is the ISO week (Monday to Sunday) holding day.
func WeekOf(day time.Time) Period {
	d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	d = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)) // back to Monday
	y, w := d.ISOWeek()
	return Period{Kind: Week, Key: fmt.Sprintf("%04d-W%02d", y, w), Start: d, End: d.AddDate(0, 0, 7)}
}

// MonthOf is the calendar month holding day.
func MonthOf(day time.Time) Period {
	d := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
	return Period{Kind: Month, Key: d.Format("2006-01"), Start: d, End: d.AddDate(0, 1, 0)}
}

var (
	weekKey  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4})-W(\d{2})$`) })
	monthKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4})-(\d{2})$`) })
)

// ParsePeriod reads "2026-W47" or "2026-11".
func ParsePeriod(s string) (Period, error) {
	if m := weekKey().FindStringSubmatch(s); m != nil {
		y, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		// 4 January is always in ISO week 1.
		p := WeekOf(time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7*(w-1)))
		if w < 1 || p.Key != s {
			return Period{}, fmt.Errorf("no week %s", s)
		}
		return p, nil
	}
	if m := monthKey().FindStringSubmatch(s); m != nil {
		mo, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[1])
		if mo < 1 || mo > 12 {
			return Period{}, fmt.Errorf("no month %s", s)
		}
		return MonthOf(time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)), nil
	}
	return Period{}, fmt.Errorf("period %q is neither a week (2026-W47) nor a month (2026-11)", s)
}

// PeriodOf returns the period of kind holding day.
func PeriodOf(kind string, day time.Time) Period {
	if kind == Month {
		return MonthOf(day)
	}
	return WeekOf(day)
}
