// Package devsync shares a workspace between devices through the user's own
// git: it makes the workspace a repository, commits, fetches, merges and
// pushes, and merges memory files by construction (a git merge driver that
// never leaves a conflict marker in a memory file and never loses a line).
// It also folds in the conflict copies file-sync tools leave behind.
package devsync

import (
	"path"
	"strings"

	"agent/memory/printable"
)

// ConflictMark opens the block a merge writes where both devices changed
// the same lines: both versions follow it, the merging device's first. `agent
// doctor` looks for it. It is visible text, not a git conflict marker, so
// the file stays readable markdown and nothing trips over it.
const ConflictMark = "> **sync:** both devices changed these lines; both versions are kept below. Keep the right one, then delete this note and its end line."

// The lines that separate the two versions and close the block. Neither
// says "this device": the merged file travels, and on the other device
// "this" would name the wrong one.
const (
	conflictThis  = "> **sync:** one device's version:"
	conflictOther = "> **sync:** the other device's version:"
	conflictEnd   = "> **sync:** end of the two versions."
)

// Result is a merged file and how many places in it hold both versions.
type Result struct {
	Data      []byte
	Conflicts int
}

// Merge merges the versions of the workspace file rel (a slash path) from
// the last common version (base), this device (ours) and the other device
// (theirs). A nil base means there is none (a file-sync tool's conflict
// copy, or a file both sides added): then every line of both sides is kept. The rule depends on the
// file: daily logs entry by entry in time order, journals line by line,
// other markdown (MEMORY.md, SOUL.md, skills, digests) section by section,
// anything else line by line.
func Merge(rel string, base, ours, theirs []byte) Result {
	if len(base) == 0 {
		base = nil // git's base for a file both sides added: nothing to stand on
	}
	b, o, t := splitLines(base), splitLines(ours), splitLines(theirs)
	var out []string
	conflicts := 0
	switch {
	case isLog(rel):
		out, conflicts = mergeLog(b, o, t, base == nil)
	case isJournal(rel):
		out = mergeUnits(splitUnits(b, nil), splitUnits(o, nil), splitUnits(t, nil), nil)
	case strings.HasSuffix(rel, ".md"):
		out, conflicts = mergeSections(b, o, t, base == nil)
	default:
		if base == nil {
			b = common(o, t)
		}
		out, conflicts = mergeLines(b, o, t)
	}
	return Result{Data: joinLines(out, len(ours) == 0 || strings.HasSuffix(string(ours), "\n") || strings.HasSuffix(string(theirs), "\n")), Conflicts: conflicts}
}

// isLog is a daily log: logs/YYYY-MM-DD.md.
func isLog(rel string) bool {
	dir, name := path.Split(rel)
	return dir == "logs/" && isDateName(name)
}

func isDateName(name string) bool {
	d, ok := strings.CutSuffix(name, ".md")
	if !ok || len(d) != 10 || d[4] != '-' || d[7] != '-' {
		return false
	}
	for i, c := range d {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// JournalDir holds the per-device journals of user-owned records.
const JournalDir = "sync/journal"

func isJournal(rel string) bool {
	return path.Dir(rel) == JournalDir && strings.HasSuffix(rel, ".jsonl")
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func joinLines(lines []string, eol bool) []byte {
	s := strings.Join(lines, "\n")
	if eol && len(lines) > 0 {
		s += "\n"
	}
	return []byte(s)
}

// mergeLines is a three-way line merge. Where only one side changed a
// stretch, its change is taken; where both only added lines at the same
// place, both additions are kept (ours first); where both changed the same
// base lines differently, both versions are kept inside a conflict block.
func mergeLines(base, ours, theirs []string) ([]string, int) {
	var out []string
	conflicts := 0
	for _, h := range diff3(base, ours, theirs) {
		switch {
		case h.stable, same(h.theirs, h.base), same(h.ours, h.theirs):
			out = append(out, h.ours...)
		case same(h.ours, h.base):
			out = append(out, h.theirs...)
		case len(h.base) == 0:
			out = append(append(out, h.ours...), h.theirs...)
		default:
			conflicts++
			out = append(out, ConflictMark, "", conflictThis, "")
			out = append(out, h.ours...)
			out = append(out, "", conflictOther, "")
			out = append(out, h.theirs...)
			out = append(out, "", conflictEnd)
		}
	}
	return out, conflicts
}

// section is a "## heading" and the lines up to the next one; the part
// before the first heading is the section with key "".
type section struct {
	key   string
	lines []string
}

func splitSections(lines []string) []section {
	secs := []section{{}}
	seen := map[string]int{}
	for _, l := range lines {
		if strings.HasPrefix(l, "## ") {
			key := strings.ToLower(printable.OneLine(l[3:]))
			// A heading used twice is told apart by its rank, so each
			// instance merges with its own counterpart.
			seen[key]++
			if n := seen[key]; n > 1 {
				key += "\x00" + strings.Repeat("+", n)
			}
			secs = append(secs, section{key: "## " + key})
		}
		secs[len(secs)-1].lines = append(secs[len(secs)-1].lines, l)
	}
	return secs
}

// mergeSections merges markdown section by section: a section only one
// side changed (or removed) takes that side's version, a section added on
// either side is kept, and a section changed on both is merged line by
// line. Without a base nothing counts as removed.
func mergeSections(base, ours, theirs []string, noBase bool) ([]string, int) {
	bs, os_, ts := index(splitSections(base)), splitSections(ours), splitSections(theirs)
	ti := index(ts)
	oi := index(os_)
	merged := map[string][]string{}
	keep := map[string]bool{}
	conflicts := 0
	for _, key := range unionKeys(os_, ts) {
		b, inB := bs[key]
		o, inO := oi[key]
		t, inT := ti[key]
		switch {
		case inO && inT:
			if noBase {
				b = common(o, t)
			}
			m, n := mergeLines(b, o, t)
			merged[key], keep[key] = m, true
			conflicts += n
		case inO:
			// Removed on their side: gone if ours did not change it.
			keep[key] = noBase || !inB || !same(o, b)
			merged[key] = o
		case inT:
			keep[key] = noBase || !inB || !same(t, b)
			merged[key] = t
		}
	}
	var out []string
	for _, key := range unionKeys(os_, ts) {
		if keep[key] {
			out = append(out, merged[key]...)
		}
	}
	return out, conflicts
}

func index(secs []section) map[string][]string {
	m := make(map[string][]string, len(secs))
	for _, s := range secs {
		m[s.key] = s.lines
	}
	return m
}

// unionKeys is ours' sections in order, with each section only theirs has
// placed after the one that precedes it there.
func unionKeys(ours, theirs []section) []string {
	var keys []string
	has := map[string]bool{}
	for _, s := range ours {
		keys = append(keys, s.key)
		has[s.key] = true
	}
	prev := ""
	for _, s := range theirs {
		if !has[s.key] {
			at := len(keys)
			for i, k := range keys {
				if k == prev {
					at = i + 1
					break
				}
			}
			keys = append(keys[:at], append([]string{s.key}, keys[at:]...)...)
			has[s.key] = true
		}
		prev = s.key
	}
	return keys
}
