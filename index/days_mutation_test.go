package index

import (
	"slices"
	"testing"
)

// A span of days holds its last day: --since and --until are inclusive,
// and a chunk on the --until day that matches the words is found (issue
// 50: the mutant making inDays' upper bound exclusive passed every unit
// test, whose spans ended after their last entry).
func TestUntilDayIsInTheSpan(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-17.md": "# 2026-11-17\n\n### 09:10\n\nWalked to the harbour.\n",
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nSwam in the harbour.\n",
		"logs/2026-11-19.md": "# 2026-11-19\n\n### 09:10\n\nSailed out of the harbour.\n",
	})
	ix, _ := open(t, home)
	for _, tc := range []struct {
		since, until string
		want         []string
	}{
		{"2026-11-17", "2026-11-18", []string{"logs/2026-11-17.md", "logs/2026-11-18.md"}},
		{"2026-11-18", "2026-11-18", []string{"logs/2026-11-18.md"}},
		{"", "2026-11-17", []string{"logs/2026-11-17.md"}},
	} {
		got := paths(search(t, ix, "harbour", SearchOptions{Since: tc.since, Until: tc.until}))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("harbour --since %q --until %q: %v, want %v", tc.since, tc.until, got, tc.want)
		}
	}
}
