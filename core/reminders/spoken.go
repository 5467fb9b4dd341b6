package reminders

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"agent/memory/printable"
)

// spokenRe is a day as people say it, then a time of day, either may be
// missing: "tomorrow at 9", "tomorrow 9", "at 9", "9am", "tonight",
// "next monday at noon". The natural parser refuses the first three ("at 9"
// is not one of its phrases) and reads "tomorrow 9" as tomorrow alone.
var spokenRe = sync.OnceValue(func() *regexp.Regexp {
	const day = `today|tonight|tomorrow|(?:next\s+)?(?:mon|monday|tue|tues|tuesday|wed|wednesday|thu|thur|thurs|thursday|fri|friday|sat|saturday|sun|sunday)`
	const clock = `(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?|noon|midnight`
	return regexp.MustCompile(`(?i)^(?:(` + day + `)\b\s*,?\s*)?(?:(?:at|@)\s*)?(?:(` + clock + `))?$`)
})

var weekdays = map[string]time.Weekday{
	"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
}

// tonightAt is "tonight" without a time of day.
const tonightAt = 20

// parseSpoken reads spokenRe's phrases relative to base; ok is false when s
// is not one of them (the natural parser then tries). A time of day with
// no day named is the next one to come: "9am" at 10:44 is tomorrow's. An
// hour without am or pm is on the 24-hour clock ("at 9" is 09:00), except
// tonight's ("tonight at 9" is 21:00); the confirmation says which.
func parseSpoken(s string, base, now time.Time) (t time.Time, ok bool) {
	m := spokenRe().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || m[1] == "" && m[2] == "" {
		return time.Time{}, false
	}
	day := strings.ToLower(printable.OneLine(m[1]))
	hour, minute := -1, 0
	switch c := strings.ToLower(m[2]); {
	case c == "noon":
		hour = 12
	case c == "midnight":
		hour = 0
	case c != "":
		hour, _ = strconv.Atoi(m[3])
		if m[4] != "" {
			minute, _ = strconv.Atoi(m[4])
		}
		switch suffix := strings.ReplaceAll(strings.ToLower(m[5]), ".", ""); {
		case suffix != "":
			if hour < 1 || hour > 12 {
				return time.Time{}, false
			}
			hour %= 12
			if suffix == "pm" {
				hour += 12
			}
		case day == "tonight" && hour >= 1 && hour < 12:
			hour += 12
		}
		if hour > 23 || minute > 59 {
			return time.Time{}, false
		}
	}
	if hour < 0 {
		if day != "tonight" {
			return time.Time{}, false // "tomorrow" alone: a time of day is asked for
		}
		hour = tonightAt
	}
	y, mo, d := base.Date()
	at := func(days int) time.Time { return time.Date(y, mo, d+days, hour, minute, 0, 0, base.Location()) }
	switch {
	case day == "" || day == "today" || day == "tonight":
		t = at(0)
		if day == "" && t.Before(now) {
			t = at(1) // "9am" when 9 is past: tomorrow's
		}
	case day == "tomorrow":
		t = at(1)
	default:
		want := weekdays[strings.TrimPrefix(day, "next ")[:3]]
		n := (int(want) - int(base.Weekday()) + 7) % 7
		if n == 0 {
			n = 7 // "friday" on a Friday is the next one, as the natural parser reads it
		}
		t = at(n)
	}
	return t, true
}

// SplitTrailingTime finds a time said at the end of a reminder's words
// ("call mom tomorrow at 9"): the longest run of final words that reads as
// a time, and the words before it. A bare number is not taken ("read
// chapter 9"); at least one word must remain. ok is false when no time ends
// the words.
func SplitTrailingTime(words string, now time.Time, loc *time.Location) (text, at string, due time.Time, ok bool) {
	f := strings.Fields(words)
	if _, err := Parse(words, now, loc); err == nil {
		return words, "", time.Time{}, false // all time, no words to remind of
	}
	for n := min(len(f)-1, 5); n >= 1; n-- {
		at = strings.Join(f[len(f)-n:], " ")
		if bareNumber().MatchString(at) {
			continue
		}
		if t, err := Parse(at, now, loc); err == nil {
			return strings.Join(f[:len(f)-n], " "), at, t, true
		}
	}
	return words, "", time.Time{}, false
}

var bareNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+$`) })
