package jobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"agent/memory/printable"
)

// minEvery is the shortest "every D": the system scheduler wakes the tick
// once a minute at best.
const minEvery = time.Minute

// cronParser reads five-field cron lines and the @descriptors (@daily,
// @weekly, @every 1h). Time zones come from --tz, not from a CRON_TZ= prefix,
// so that the zone is stored, shown and checked in one place.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Schedule is a parsed schedule with the zone it is read in.
type Schedule struct {
	Spec string // as the user typed it
	Loc  *time.Location
	s    cron.Schedule
}

// ParseSchedule reads a schedule: a cron line ("0 8 * * *"), a descriptor
// ("@daily", "@weekly"), or "every D" / "@every D" with D at least a minute.
func ParseSchedule(spec string, loc *time.Location) (Schedule, error) {
	spec = printable.OneLine(spec)
	if spec == "" {
		return Schedule{}, invalidf("empty schedule: use e.g. \"0 8 * * *\", @daily or \"every 1h\"")
	}
	if strings.Contains(spec, "TZ=") {
		return Schedule{}, invalidf("schedule %q: give the time zone with --tz, not in the schedule", spec)
	}
	expr := spec
	if strings.HasPrefix(spec, "every ") {
		expr = "@" + spec
	}
	if d, ok := strings.CutPrefix(expr, "@every "); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur < minEvery {
			return Schedule{}, invalidf("schedule %q: \"every\" takes a duration of at least 1m, e.g. every 30m, every 1h, every 24h", spec)
		}
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return Schedule{}, invalidf("schedule %q: %v (use e.g. \"0 8 * * *\", @daily or \"every 1h\")", spec, err)
	}
	return Schedule{Spec: spec, Loc: loc, s: s}, nil
}

// Next is the first due time strictly after t. Cron fields are read on the
// wall clock of the schedule's zone, so "0 8 * * *" stays at 08:00 across a
// change to or from summer time; "every D" is D of elapsed time.
//
// When the clocks go back, the parser would name a repeated hour's slot a
// second time (01:30 EDT, then 01:30 EST); a slot whose wall-clock reading
// is not after t's has been passed already, so it is skipped and a daily
// job runs once that day.
func (s Schedule) Next(t time.Time) time.Time {
	t = t.In(s.Loc)
	n := s.s.Next(t)
	if _, every := s.s.(cron.ConstantDelaySchedule); !every {
		for i := 0; i < 4 && !n.IsZero() && !wall(n).After(wall(t)); i++ {
			n = s.s.Next(n)
		}
	}
	return n.UTC()
}

// wall is t's clock reading in its own zone, as if it were UTC, so two
// readings compare the way a wall clock shows them.
func wall(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	return time.Date(y, mo, d, h, mi, sec, 0, time.UTC)
}

// Words describes the schedule for people and for the identity section:
// "daily, 08:00", "weekly, Mon 03:00", "every 1h"; a cron line with no
// simple reading is quoted as it is. It depends only on the schedule, so it
// never moves between runs.
func (s Schedule) Words() string {
	w := words(s.Spec)
	if !strings.HasPrefix(w, "every ") {
		w += " " + s.Loc.String()
	}
	return w
}

var descriptorWords = map[string]string{
	"@yearly":   "yearly, 1 Jan 00:00",
	"@annually": "yearly, 1 Jan 00:00",
	"@monthly":  "monthly, day 1 00:00",
	"@weekly":   "weekly, Sun 00:00",
	"@daily":    "daily, 00:00",
	"@midnight": "daily, 00:00",
	"@hourly":   "hourly, at :00",
}

var dayNames = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

func words(spec string) string {
	if w, ok := descriptorWords[spec]; ok {
		return w
	}
	if d, ok := strings.CutPrefix(spec, "@every "); ok {
		return "every " + d
	}
	if strings.HasPrefix(spec, "every ") {
		return spec
	}
	quoted := fmt.Sprintf("cron %q", spec)
	f := strings.Fields(spec)
	if len(f) != 5 {
		return quoted
	}
	min, errM := strconv.Atoi(f[0])
	hour, errH := strconv.Atoi(f[1])
	if errM != nil {
		return quoted
	}
	if f[1] == "*" && f[2] == "*" && f[3] == "*" && f[4] == "*" {
		return fmt.Sprintf("hourly, at :%02d", min)
	}
	if errH != nil || f[3] != "*" {
		return quoted
	}
	clock := fmt.Sprintf("%02d:%02d", hour, min)
	switch {
	case f[2] == "*" && f[4] == "*":
		return "daily, " + clock
	case f[2] == "*" && f[4] == "1-5":
		return "weekdays, " + clock
	case f[2] == "*":
		if d, err := strconv.Atoi(f[4]); err == nil && d >= 0 && d <= 7 {
			return "weekly, " + dayNames[d] + " " + clock
		}
		if len(f[4]) == 3 {
			return "weekly, " + strings.ToUpper(f[4][:1]) + strings.ToLower(f[4][1:]) + " " + clock
		}
	case f[4] == "*":
		if d, err := strconv.Atoi(f[2]); err == nil {
			return fmt.Sprintf("monthly, day %d %s", d, clock)
		}
	}
	return quoted
}
