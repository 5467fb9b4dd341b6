package devsync

import (
	"strings"
	"testing"
)

// An entry this device wrote a second time while the other device deleted
// the one copy they shared: the side that changed the count upward wins
// (max), so the entry written again is kept. The lower count (min) would
// drop both copies, and the entry written here would be lost.
func TestMergeLogKeepsAnEntryWrittenAgainWhileTheOtherRemovedIt(t *testing.T) {
	const entry = "### 09:00\n\nwatered the plants"
	base := "# 2026-11-27\n\n" + entry + "\n\n### 10:00\n\ncoffee\n"
	ours := "# 2026-11-27\n\n" + entry + "\n\n" + entry + "\n\n### 10:00\n\ncoffee\n" // written again here
	theirs := "# 2026-11-27\n\n### 10:00\n\ncoffee\n"                                 // removed there
	r := Merge("logs/2026-11-27.md", []byte(base), []byte(ours), []byte(theirs))
	got := string(r.Data)
	if n := strings.Count(got, "watered the plants"); n != 2 {
		t.Errorf("the entry written twice here is in the merge %d times, want 2:\n%s", n, got)
	}
	if n := strings.Count(got, "coffee"); n != 1 || r.Conflicts != 0 {
		t.Errorf("the untouched entry %d times, %d conflicts:\n%s", n, r.Conflicts, got)
	}
	// The same, seen from the other device: the merge does not depend on
	// which side is ours.
	r = Merge("logs/2026-11-27.md", []byte(base), []byte(theirs), []byte(ours))
	if n := strings.Count(string(r.Data), "watered the plants"); n != 2 {
		t.Errorf("merged on the other device, the entry is there %d times, want 2:\n%s", n, r.Data)
	}
}
