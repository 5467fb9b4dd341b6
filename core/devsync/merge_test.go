package devsync

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestMergeLogInterleavesEntriesByTime(t *testing.T) {
	base := "# 2026-11-27\n\n### 08:00\n\nbreakfast\n"
	ours := base + "\n### 09:00\n\nlaptop one\n\n### 11:00\n\nlaptop two\n"
	theirs := base + "\n### 10:00\n\ndesktop one\n\n### 12:00\n\ndesktop two\n"
	r := Merge("logs/2026-11-27.md", []byte(base), []byte(ours), []byte(theirs))
	want := "# 2026-11-27\n\n### 08:00\n\nbreakfast\n\n### 09:00\n\nlaptop one\n\n### 10:00\n\ndesktop one\n\n### 11:00\n\nlaptop two\n\n### 12:00\n\ndesktop two\n"
	if string(r.Data) != want || r.Conflicts != 0 {
		t.Errorf("merged (%d conflicts):\n%s\nwant:\n%s", r.Conflicts, r.Data, want)
	}
}

func TestMergeLogKeepsARemovalAndBothEdits(t *testing.T) {
	base := "# 2026-11-27\n\n### 08:00\n\nforget me\n\n### 09:00\n\nedit me\n"
	ours := "# 2026-11-27\n\n### 09:00\n\nedited here\n"                              // forgot 08:00, edited 09:00
	theirs := "# 2026-11-27\n\n### 08:00\n\nforget me\n\n### 09:00\n\nedited there\n" // edited 09:00
	r := string(Merge("logs/2026-11-27.md", []byte(base), []byte(ours), []byte(theirs)).Data)
	if strings.Contains(r, "forget me") {
		t.Errorf("a removed entry came back:\n%s", r)
	}
	for _, s := range []string{"edited here", "edited there"} {
		if !strings.Contains(r, s) {
			t.Errorf("lost %q:\n%s", s, r)
		}
	}
}

func TestMergeSectionsThreeWay(t *testing.T) {
	base := "# Memory\n\n## User Facts\n\n- likes tea\n- lives in Lyon\n\n## Projects\n\n- garden\n"
	ours := "# Memory\n\n## User Facts\n\n- likes tea\n- lives in Paris\n- has a cat\n\n## Projects\n\n- garden\n"
	theirs := "# Memory\n\n## User Facts\n\n- likes tea\n- lives in Berlin\n- has a dog\n\n## Projects\n\n- garden\n- kiln\n\n## Travel\n\n- Japan in May\n"
	r := Merge("MEMORY.md", []byte(base), []byte(ours), []byte(theirs))
	got := string(r.Data)
	if r.Conflicts != 1 {
		t.Errorf("conflicts = %d, want 1:\n%s", r.Conflicts, got)
	}
	for _, s := range []string{"lives in Paris", "lives in Berlin", "has a cat", "has a dog", "- kiln", "## Travel", ConflictMark} {
		if !strings.Contains(got, s) {
			t.Errorf("merged lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "lives in Lyon") || strings.Contains(got, "<<<<<<<") {
		t.Errorf("base line or git marker left:\n%s", got)
	}
	if strings.Index(got, "- kiln") > strings.Index(got, "## Travel") {
		t.Errorf("new section not after its predecessor:\n%s", got)
	}
}

func TestMergeSectionsDifferentSectionsNoConflict(t *testing.T) {
	base := "## A\n\n- a\n\n## B\n\n- b\n"
	ours := "## A\n\n- a changed\n\n## B\n\n- b\n"
	theirs := "## A\n\n- a\n\n## B\n\n- b changed\n"
	r := Merge("MEMORY.md", []byte(base), []byte(ours), []byte(theirs))
	if want := "## A\n\n- a changed\n\n## B\n\n- b changed\n"; string(r.Data) != want || r.Conflicts != 0 {
		t.Errorf("got (%d):\n%s", r.Conflicts, r.Data)
	}
}

func TestMergeWithoutBaseKeepsEveryLine(t *testing.T) {
	ours := "## A\n\n- one\n- two\n"
	theirs := "## A\n\n- one\n- three\n\n## B\n\n- four\n"
	r := string(Merge("MEMORY.md", nil, []byte(ours), []byte(theirs)).Data)
	for _, s := range []string{"- one", "- two", "- three", "## B", "- four"} {
		if strings.Count(r, s) != 1 {
			t.Errorf("%q not once:\n%s", s, r)
		}
	}
}

func TestMergeJournalUnionsLines(t *testing.T) {
	base := "{\"a\":1}\n"
	r := string(Merge("sync/journal/dev1.jsonl", []byte(base), []byte(base+"{\"b\":2}\n"), []byte(base+"{\"c\":3}\n")).Data)
	if r != "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n" {
		t.Errorf("got %q", r)
	}
}

// Two versions of a huge section rewritten throughout are kept whole,
// without an LCS table the size of their product.
func TestMergeHugeRewriteKeepsBoth(t *testing.T) {
	var base, ours, theirs strings.Builder
	base.WriteString("## Big\n\n")
	ours.WriteString("## Big\n\n")
	theirs.WriteString("## Big\n\n")
	for i := range 5000 {
		fmt.Fprintf(&base, "- fact %d\n", i)
		fmt.Fprintf(&ours, "- fact %d, here\n", i)
		fmt.Fprintf(&theirs, "- fact %d, there\n", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := Merge("MEMORY.md", []byte(base.String()), []byte(ours.String()), []byte(theirs.String()))
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 50 {
		t.Errorf("the merge allocated %d MB", mb)
	}
	got := string(r.Data)
	if r.Conflicts != 1 || !strings.Contains(got, "- fact 4999, here\n") || !strings.Contains(got, "- fact 4999, there\n") {
		t.Errorf("%d conflicts, %d bytes", r.Conflicts, len(got))
	}
}
