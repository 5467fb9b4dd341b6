package devsync

import "testing"

// TestSummarySaysWhatCameIn: record changes (journal lines) are said as
// such, and a merge that only edited lines (a forget on the other device)
// is not "0 log entries".
func TestSummarySaysWhatCameIn(t *testing.T) {
	for _, c := range []struct {
		r    Report
		want string
	}{
		{Report{Remote: "r"}, "synced with r: nothing new came in; nothing to push"},
		{Report{Remote: "r", Files: []string{"logs/a.md"}, Entries: 3, Pushed: true}, "synced with r: 3 log entries came in (1 file); pushed"},
		{Report{Remote: "r", Files: []string{"sync/journal/d.jsonl"}, Records: 2}, "synced with r: 2 record changes came in (1 file); nothing to push"},
		{Report{Remote: "r", Files: []string{"logs/a.md", "sync/journal/d.jsonl"}, Entries: 1, Records: 1}, "synced with r: 1 log entry and 1 record change came in (2 files); nothing to push"},
		{Report{Remote: "r", Files: []string{"logs/a.md", "MEMORY.md"}}, "synced with r: changes came in (2 files); nothing to push"},
	} {
		if got := c.r.Summary(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.r, got, c.want)
		}
	}
}
