package reminders

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"agent/core/when"
)

// Layouts of an ISO 8601 time: with an offset it is absolute; without one it
// is read in the user's zone.
var (
	isoWithOffset = []string{time.RFC3339, "2006-01-02T15:04Z07:00"}
	isoLocal      = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"}
)

var (
	// relative is "+2h", "+90m", "+1h30m", and the days and weeks Go's
	// durations lack: "+2d", "+1w".
	relativeDays = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\+(\d{1,4})([dw])$`) })
	isoDate      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })
	// clockWords says a phrase names a time of day or an offset in hours or
	// minutes; without one, "tomorrow" or "fri" would silently mean "at this
	// very minute of that day", which nobody means.
	clockWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\d{1,2}:\d{2}|\b\d{1,2}\s*(am|pm|a\.m\.|p\.m\.)|\bnoon\b|\bmidnight\b|\bin\s+\S+\s+(sec|second|min|minute|hour|hr)s?\b`)
	})
	// clockOnly is a time of day with no day named: "9:30", "at 10am", "noon".
	clockOnly = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(at\s+)?(\d{1,2}(:\d{2})?\s*(am|pm|a\.m\.|p\.m\.)?|noon|midnight)$`)
	})
	// fillers may stand around the phrase the parser understood.
	fillers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(at|on|by)\b|[\s,.;]`) })
)

// Parse reads when a reminder is due, relative to now, in loc: an ISO time
// ("2026-12-04T18:00", with or without an offset), a duration from now
// ("+2h", "+1d"), or an English phrase ("tomorrow 9:00", "fri 18:00"). A
// phrase with words the parser did not understand, without a time of day,
// or a time in the past is refused with ErrInvalid, saying what was
// understood.
func Parse(s string, now time.Time, loc *time.Location) (time.Time, error) {
	return parseFrom(s, now, now, loc)
}

// ParseSnooze reads a snooze's new time for a reminder due at due. A
// duration ("+1h") or a bare time of day ("9:30", "10am") moves a reminder
// that is still ahead from its own due time, keeping its date: +1h on
// tomorrow's 08:00 is tomorrow 09:00, not an hour from now. Anything naming
// a day ("tomorrow 9:00", "fri 18:00", an ISO time) is as in Parse, and so
// is every form for a reminder already due, which is snoozed from now.
func ParseSnooze(s string, now, due time.Time, loc *time.Location) (time.Time, error) {
	base := now
	if t := strings.TrimSpace(s); due.After(now) && (strings.HasPrefix(t, "+") || clockOnly().MatchString(t)) {
		base = due
	}
	return parseFrom(s, base, now, loc)
}

// parseFrom reads s relative to base ("+2h" after it, "9:00" on its day),
// refusing a time before now.
func parseFrom(s string, base, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	now, base = now.In(loc), base.In(loc)
	if s == "" {
		return time.Time{}, invalidf("empty time: say when, e.g. --at \"tomorrow 9:00\", --at +2h or --at 2026-12-04T18:00")
	}
	t, err := parseExact(s, base, loc)
	if err != nil {
		return time.Time{}, err
	}
	if t.IsZero() {
		if st, ok := parseSpoken(s, base, now); ok {
			t = st
		} else if t, err = parseNatural(s, base); err != nil {
			return time.Time{}, err
		}
	}
	if t.Before(now.Truncate(time.Second)) {
		return time.Time{}, invalidf("%q is in the past: understood as %s (now %s)", s, Format(t, loc), Format(now, loc))
	}
	return t, nil
}

// parseExact reads the forms that need no guessing; a zero time means s is
// none of them.
func parseExact(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if strings.HasPrefix(s, "+") {
		if m := relativeDays().FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			if m[2] == "w" {
				n *= 7
			}
			return now.AddDate(0, 0, n), nil
		}
		d, err := time.ParseDuration(s[1:])
		if err != nil || d <= 0 {
			return time.Time{}, invalidf("%q is not a duration from now: use e.g. +90s, +30m, +2h, +1h30m, +2d, +1w", s)
		}
		return now.Add(d), nil
	}
	for _, layout := range isoWithOffset {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	for _, layout := range isoLocal {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if isoDate().MatchString(s) {
		return time.Time{}, invalidf("%q is a date without a time of day: add one, e.g. \"%sT09:00\"", s, s)
	}
	return time.Time{}, nil
}

func parseNatural(s string, now time.Time) (time.Time, error) {
	res, err := naturalParser.Parse(s, now)
	if err != nil || res == nil {
		return time.Time{}, invalidf("could not read a time in %q: use e.g. \"tomorrow 9:00\", \"fri 18:00\", +2h or 2026-12-04T18:00", s)
	}
	understood := Format(res.Time, now.Location())
	rest := s[:res.Index] + s[res.Index+len(res.Text):]
	if strings.TrimSpace(fillers().ReplaceAllString(rest, "")) != "" {
		return time.Time{}, invalidf("%q is ambiguous: understood only %q, as %s; say it as e.g. \"tomorrow 9:00\" or 2026-12-04T18:00", s, res.Text, understood)
	}
	if !clockWords().MatchString(res.Text) {
		return time.Time{}, invalidf("%q has no time of day: understood %s at the current time; add one, e.g. %q", s, res.Time.Format("Mon 2006-01-02"), s+" 9:00")
	}
	return res.Time, nil
}

// Format is how a due time is shown to people: when.Format, the one shape
// of every human-facing time.
func Format(t time.Time, loc *time.Location) string { return when.Format(t, loc) }

// ParseISO reads the ISO 8601 time with an offset that the model's
// reminder_add tool takes; it must not be in the past.
func ParseISO(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range isoWithOffset {
		if t, err := time.Parse(layout, s); err == nil {
			if t.Before(now.Truncate(time.Second)) {
				return time.Time{}, invalidf("%q is in the past (now %s)", s, now.In(loc).Format(time.RFC3339))
			}
			return t, nil
		}
	}
	return time.Time{}, invalidf("%q is not an ISO 8601 time with an offset, e.g. %s", s, now.In(loc).Add(time.Hour).Truncate(time.Minute).Format(time.RFC3339))
}

// describe is a short "due …" phrase for a reminder relative to now.
func describe(r Reminder, now time.Time, loc *time.Location) string {
	if r.DueAt.After(now) {
		return "due " + Format(r.DueAt, loc)
	}
	return fmt.Sprintf("due since %s", Format(r.DueAt, loc))
}
