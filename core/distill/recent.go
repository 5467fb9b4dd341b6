package distill

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"agent/memory"
)

// RecentLines are the identity section's recent context from the tiers:
// the headline items of the latest weekly digest — its first bullets, in
// the digest's order — each with its citation, within budgetTokens
// (estimated at CharsPerToken; DefaultRecentTokens when <= 0). The first
// line names the digest; when items are left out a last line says how many
// and where they are. Nil when there is no weekly digest. Deterministic: it
// depends on the digest files only.
func RecentLines(home string, budgetTokens int) ([]string, error) {
	if budgetTokens <= 0 {
		budgetTokens = DefaultRecentTokens
	}
	p, ok, err := latestWeek(home)
	if err != nil || !ok {
		return nil, err
	}
	f, err := os.Open(filepath.Join(home, p.Path()))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Path(), err)
	}
	defer f.Close()
	var items []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if bulletRE().MatchString(sc.Text()) {
			// Repeated in every prompt: a secret an editor put in the
			// digest goes there as its marker.
			line, _ := memory.RedactLines(sc.Text())
			items = append(items, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Path(), err)
	}
	out := []string{fmt.Sprintf("Week %s (%s to %s), from %s:", p.Key, p.Date(), p.Last(), p.Path())}
	used := len(out[0])
	budget := budgetTokens * CharsPerToken
	for i, it := range items {
		if used+len(it)+1 > budget {
			out = append(out, fmt.Sprintf("(%d more in %s)", len(items)-i, p.Path()))
			break
		}
		used += len(it) + 1
		out = append(out, it)
	}
	return out, nil
}

// latestWeek finds the newest digests/YYYY-Www.md.
func latestWeek(home string) (Period, bool, error) {
	ents, err := os.ReadDir(filepath.Join(home, DigestsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return Period{}, false, nil
	}
	if err != nil {
		return Period{}, false, fmt.Errorf("list %s: %w", DigestsDir, err)
	}
	var weeks []Period
	for _, e := range ents {
		if p, err := ParsePeriod(strings.TrimSuffix(e.Name(), ".md")); err == nil && p.Kind == Week && strings.HasSuffix(e.Name(), ".md") {
			weeks = append(weeks, p)
		}
	}
	if len(weeks) == 0 {
		return Period{}, false, nil
	}
	sort.Slice(weeks, func(i, j int) bool { return weeks[i].Start.Before(weeks[j].Start) })
	return weeks[len(weeks)-1], true, nil
}

// Overdue notes the distillations that are due and not done: last week's
// and last month's, when they have logs and no digest ("last week
// (2026-W47) not distilled yet: run agent memory distill"). For agent
// doctor and the identity section; it depends on today's date and the
// files only.
func Overdue(home string, today time.Time) ([]string, error) {
	var out []string
	for _, c := range []struct {
		name string
		p    Period
	}{
		{"last week", WeekOf(today).prev()},
		{"last month", MonthOf(today).prev()},
	} {
		// A stat for each day of the period, not a listing of logs/: this
		// runs in every chat turn's identity section, and logs/ grows by a
		// file a day for years.
		has, err := hasLog(home, c.p)
		if err != nil {
			return nil, err
		}
		if !has {
			continue
		}
		done, err := Distilled(home, c.p)
		if err != nil {
			return nil, err
		}
		if !done {
			out = append(out, fmt.Sprintf("%s (%s) not distilled yet: run agent memory distill", c.name, c.p.Key))
		}
	}
	return out, nil
}

// hasLog reports whether any day of p has a log. Each day's name is
// written into one buffer: this runs for up to 38 days on every chat turn.
func hasLog(home string, p Period) (bool, error) {
	path := []byte(filepath.Join(home, LogsDir) + string(filepath.Separator))
	dir := len(path)
	for d := p.Start; d.Before(p.End); d = d.AddDate(0, 0, 1) {
		path = append(d.AppendFormat(path[:dir], time.DateOnly), ".md"...)
		_, err := os.Stat(string(path))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	return false, nil
}

// prev is the period just before p.
func (p Period) prev() Period { return PeriodOf(p.Kind, p.Start.AddDate(0, 0, -1)) }
