// Package when says a time to a person: the one format every human-facing
// time uses (tables, confirmations, doctor, status lines), so that a
// session list, a reminder and a profile change read in one zone and one
// shape. Machine output (--json, piped TSV) keeps RFC 3339 instead.
package when

import "time"

// Layout is weekday, date, clock and the zone's abbreviation: the zone is
// always shown, since the user's zone (profile user.timezone) may not be the
// machine's, and a bare "07:01" would not say which.
const Layout = "Mon 2006-01-02 15:04 MST"

// Format is t in loc, as Layout says it.
func Format(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format(Layout)
}
