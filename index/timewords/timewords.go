// Package timewords finds the time a question or a search asks about:
// "yesterday", "last week", "last Saturday", "in October", "on 3 November",
// "two weeks ago", "this morning", "2026-11-23". It answers with a span of
// days, resolved in the zone of the time it is given as now, so that a
// search can select the notes of those days (docs/decisions-index.md,
// "Time words"). English, German, French and Spanish (lang.go):
// olebedev/when (core/reminders) finds points in time, not the days and
// weeks a person means by "last week".
package timewords

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Span is the days a text asks about, From to To inclusive, as
// "2006-01-02", and where its words are in the text (Start, End: byte
// offsets), so that a search need not match them.
type Span struct {
	From, To   string
	Start, End int
}

// Words is the text of the span's time words.
func (s Span) Words(text string) string { return text[s.Start:s.End] }

// Without returns text with the span's time words taken out.
func (s Span) Without(text string) string { return text[:s.Start] + " " + text[s.End:] }

// token is one word of the text: its lower-cased letters or digits and
// where it is.
type token struct {
	w          string
	start, end int
}

func tokens(text string) []token {
	var out []token
	start := -1
	for i, r := range text + " " {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, token{strings.ToLower(text[start:i]), start, i})
			start = -1
		}
	}
	return out
}

// Find returns the first time the text names, resolved against now (its
// zone is the user's), or false when it names none.
func Find(text string, now time.Time) (Span, bool) {
	ts := tokens(text)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	if m := isoDate.FindStringSubmatchIndex(text); m != nil {
		y, _ := strconv.Atoi(text[m[2]:m[3]])
		mo, _ := strconv.Atoi(text[m[4]:m[5]])
		if mo >= 1 && mo <= 12 {
			from := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, today.Location())
			to := from.AddDate(0, 1, -1)
			if m[6] >= 0 {
				d, _ := strconv.Atoi(text[m[6]:m[7]])
				if from = from.AddDate(0, 0, d-1); d < 1 || from.Month() != time.Month(mo) {
					return Span{}, false
				}
				to = from
			}
			return Span{From: day(from), To: day(to), Start: m[0], End: m[1]}, true
		}
	}
	for i := range ts {
		if from, to, n, ok := at(ts, i, today); ok {
			return Span{From: day(from), To: day(to), Start: ts[i].start, End: ts[i+n-1].end}, true
		}
	}
	return Span{}, false
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

// at tries every rule at token i: the days it names and how many tokens it
// took.
func at(ts []token, i int, today time.Time) (from, to time.Time, n int, ok bool) {
	w := ts[i].w
	next := func(k int) string {
		if i+k < len(ts) {
			return ts[i+k].w
		}
		return ""
	}
	one := func(d time.Time, n int) (time.Time, time.Time, int, bool) { return d, d, n, true }
	if from, to, n, ok := fixed(ts, i, today); ok {
		return from, to, n, true
	}
	switch w {
	case "today", "tonight":
		return one(today, 1)
	case "yesterday":
		return one(today.AddDate(0, 0, -1), 1)
	}
	if w == "day" && next(1) == "before" && next(2) == "yesterday" {
		return one(today.AddDate(0, 0, -2), 3)
	}
	if w == "this" || w == "last" || w == "past" || w == "previous" {
		back := w != "this"
		switch u := next(1); u {
		case "morning", "afternoon", "evening", "night":
			if w == "last" && u == "night" {
				return one(today.AddDate(0, 0, -1), 2)
			}
			if w == "this" {
				return one(today, 2)
			}
		case "week", "weekend":
			mon := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
			if back {
				mon = mon.AddDate(0, 0, -7)
			}
			if u == "weekend" {
				return mon.AddDate(0, 0, 5), mon.AddDate(0, 0, 6), 2, true
			}
			return mon, mon.AddDate(0, 0, 6), 2, true
		case "month":
			first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, today.Location())
			if back {
				first = first.AddDate(0, -1, 0)
			}
			return first, first.AddDate(0, 1, -1), 2, true
		case "year":
			y := today.Year()
			if back {
				y--
			}
			return time.Date(y, 1, 1, 0, 0, 0, 0, today.Location()), time.Date(y, 12, 31, 0, 0, 0, 0, today.Location()), 2, true
		default:
			if wd, ok := weekdays[u]; ok {
				back := (int(today.Weekday()) - int(wd) + 7) % 7
				if w != "this" && back == 0 {
					back = 7
				}
				return one(today.AddDate(0, 0, -back), 2)
			}
			if m, ok := months[u]; ok && len(u) > 3 {
				from := lastMonth(today, m, w != "this")
				return from, from.AddDate(0, 1, -1), 2, true
			}
		}
	}
	if w == "on" {
		if wd, ok := weekdays[next(1)]; ok {
			return one(today.AddDate(0, 0, -((int(today.Weekday())-int(wd)+7)%7)), 2)
		}
	}
	// N days/weeks/months/years ago; "vor N Tagen", "il y a N jours",
	// "hace N días".
	if n, ok := count(w); ok && next(2) == "ago" {
		if from, to, ok := ago(n, strings.TrimSuffix(next(1), "s"), today); ok {
			return from, to, 3, true
		}
	}
	if n, u, used, ok := agoPrefix(ts, i); ok {
		if from, to, ok := ago(n, u, today); ok {
			return from, to, used, true
		}
	}
	// A date with a month's name: "3 November", "3rd of November 2025",
	// "November 3", "November 3, 2025"; a month: "in October", "October
	// 2025", "during May".
	skip := 0
	if inWords[w] || onWords[w] {
		skip = 1
	}
	j := i + skip
	if j >= len(ts) {
		return
	}
	if d, isDay := dayNumber(ts[j].w); isDay {
		k := j + 1
		if k < len(ts) && ofWords[ts[k].w] {
			k++
		}
		if k < len(ts) {
			if m, isMonth := months[ts[k].w]; isMonth {
				y, used := year(ts, k+1, today, m)
				return one(time.Date(y, m, d, 0, 0, 0, 0, today.Location()), k+1+used-i)
			}
		}
		return
	}
	m, isMonth := months[ts[j].w]
	if !isMonth {
		return
	}
	if j+1 < len(ts) {
		if d, isDay := dayNumber(ts[j+1].w); isDay {
			y, used := year(ts, j+2, today, m)
			return one(time.Date(y, m, d, 0, 0, 0, 0, today.Location()), j+2+used-i)
		}
	}
	y, used := year(ts, j+1, today, m)
	// A month's name alone is a month only after "in" or before a year:
	// "may", "march" and "sun" are words too.
	if (skip == 0 || !inWords[w]) && used == 0 {
		return
	}
	from = time.Date(y, m, 1, 0, 0, 0, 0, today.Location())
	return from, from.AddDate(0, 1, -1), j + 1 + used - i, true
}

// ago is the days of "n units ago": that day, the week around that day,
// that month or that year.
func ago(n int, unit string, today time.Time) (from, to time.Time, ok bool) {
	switch unit {
	case "day":
		d := today.AddDate(0, 0, -n)
		return d, d, true
	case "week":
		d := today.AddDate(0, 0, -7*n)
		return d.AddDate(0, 0, -3), d.AddDate(0, 0, 3), true
	case "month":
		first := time.Date(today.Year(), today.Month()-time.Month(n), 1, 0, 0, 0, 0, today.Location())
		return first, first.AddDate(0, 1, -1), true
	case "year":
		y := today.Year() - n
		return time.Date(y, 1, 1, 0, 0, 0, 0, today.Location()), time.Date(y, 12, 31, 0, 0, 0, 0, today.Location()), true
	}
	return
}

// lastMonth is the first day of the latest month m not after today's (before
// it when strictly).
func lastMonth(today time.Time, m time.Month, strictly bool) time.Time {
	y := today.Year()
	if m > today.Month() || strictly && m == today.Month() {
		y--
	}
	return time.Date(y, m, 1, 0, 0, 0, 0, today.Location())
}

// year reads a year at ts[k] ("2025"), or else takes the latest year in
// which month m is not after today's month; used is 1 when it read one.
func year(ts []token, k int, today time.Time, m time.Month) (y, used int) {
	if k+1 < len(ts) && ofWords[ts[k].w] { // "3 de noviembre de 2025"
		if y, used := year(ts, k+1, today, m); used == 1 {
			return y, 2
		}
	}
	if k < len(ts) && len(ts[k].w) == 4 {
		if n, err := strconv.Atoi(ts[k].w); err == nil && n >= 1900 && n <= 2200 {
			return n, 1
		}
	}
	return lastMonth(today, m, false).Year(), 0
}

// isoDate is "2026-11-23", or a month "2026-11".
var isoDate = regexp.MustCompile(`\b(\d{4})-(\d{2})(?:-(\d{2}))?\b`)

// dayNumber reads "3", "03", "3rd", "21st".
func dayNumber(w string) (int, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if len(w) > 2 {
			w = strings.TrimSuffix(w, suf)
		}
	}
	n, err := strconv.Atoi(w)
	return n, err == nil && n >= 1 && n <= 31 && len(w) <= 2
}

// count reads a small number, in digits or words.
func count(w string) (int, bool) {
	if n, err := strconv.Atoi(w); err == nil && n > 0 && n < 100 {
		return n, true
	}
	for i, s := range []string{"a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"} {
		if w == s {
			return max(i, 1), true
		}
	}
	n, ok := numbers[w]
	return n, ok
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}
