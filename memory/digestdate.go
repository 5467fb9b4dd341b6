package memory

import (
	"fmt"
	"strings"
	"time"
)

// digestsDir holds the digests distilled from the logs (core/distill);
// they are notes the index covers, like the logs.
const digestsDir = "digests"

// inNoteDir reports whether a workspace-relative slash path is logs/,
// digests/ or imports/, or below them.
func inNoteDir(rel string) bool {
	for _, d := range []string{logsDir, digestsDir, ImportsDir} {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// digestDate is the date of a digest (see core/distill): the Monday of an ISO
// week for "2026-W47.md", the first of the month for "2026-11.md", "" for any
// other name, so digests sort and filter by date among the logs.
func digestDate(name string) string {
	var y, n int
	var rest string
	if c, _ := fmt.Sscanf(name, "%4d-W%2d%s", &y, &n, &rest); c == 3 && rest == ".md" && len(name) == len("2026-W47.md") && n >= 1 {
		// 4 January is always in ISO week 1; step to that week's Monday.
		jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
		d := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+7*(n-1))
		if wy, wn := d.ISOWeek(); wy != y || wn != n {
			return ""
		}
		return d.Format(time.DateOnly)
	}
	if c, _ := fmt.Sscanf(name, "%4d-%2d%s", &y, &n, &rest); c == 3 && rest == ".md" && len(name) == len("2026-11.md") && n >= 1 && n <= 12 {
		return time.Date(y, time.Month(n), 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	return ""
}
