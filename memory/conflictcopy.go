package memory

import (
	"regexp"
	"strings"
	"sync"
)

// conflictCopy recognises the copies file-sync tools make when two devices
// changed a file at once, each with the part of the name that, put
// together, is the original's name, by the exact pattern the tool writes:
//   - Syncthing: NAME.sync-conflict-20261127-101500-ABCDEF1.md (date, time, device)
//   - Dropbox:   NAME (Laptop's conflicted copy 2026-11-27).md (a date, maybe a number)
//   - iCloud:    NAME 2.md
//
// The first two are unmistakable for any name (exactCopies of them). The
// iCloud form looks like a name a person might choose ("Chapter 2.md",
// "2026-11-27 2.md" kept on purpose), so it counts only for the
// workspace's own files (a daily log, MEMORY.md, SOUL.md, the journals),
// and devsync merges such a copy only where the original exists and the
// copy is newer. OneDrive's NAME-DEVICE.md is not recognised: MEMORY-OLD.md
// and logs/2026-11-28-TODO.md are the user's.
var conflictCopy = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`^(.+?)\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}(\.[^.]+)?$`),
		regexp.MustCompile(`^(.+?) \([^()]*conflicted copy \d{4}-\d{2}-\d{2}(?: \d+)?\)(\.[^.]+)?$`),
		regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|MEMORY|SOUL) \d+(\.md)$`),
		regexp.MustCompile(`^([^ ]+) \d+(\.jsonl)$`),
	}
})

// exactCopies is how many of conflictCopy's patterns are unmistakable.
const exactCopies = 2

// ExactConflictCopy says whether name is a conflict copy by a pattern no
// person's file name fits (Syncthing's, Dropbox's); an iCloud-like name
// ("2026-11-27 2.md") is one only where more says so (devsync: the
// original exists and the copy is newer).
func ExactConflictCopy(name string) bool {
	if !MayBeConflictCopy(name) {
		return false
	}
	for _, re := range conflictCopy()[:exactCopies] {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// ConflictCopyOf says whether name (a file name without its directory) is
// a conflict copy a file-sync tool made, and of which file: such copies are
// merged into the original and never indexed as notes of their own.
func ConflictCopyOf(name string) (original string, ok bool) {
	if !MayBeConflictCopy(name) {
		return "", false
	}
	for _, re := range conflictCopy() {
		if m := re.FindStringSubmatch(name); m != nil {
			return m[1] + m[2], true
		}
	}
	return "", false
}

// MayBeConflictCopy is the screen before the patterns: every copy's name
// holds a space, a capital letter or ".sync-conflict-"; a daily log's holds
// none and is passed over in one loop over its bytes, without a match or
// an allocation. Every command lists the logs (FoldCopies) and every walk
// of the index sees each name, ten thousand in a year's workspace.
func MayBeConflictCopy(name string) bool {
	for i := 0; i < len(name); i++ {
		switch copyMark[name[i]] {
		case markYes:
			return true
		case markDot:
			if strings.HasPrefix(name[i:], ".sync-conflict-") {
				return true
			}
		}
	}
	return false
}

// copyMark classes the bytes MayBeConflictCopy looks for, one load a byte.
var copyMark = func() (t [256]uint8) {
	t[' '] = markYes
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = markYes
	}
	t['.'] = markDot
	return t
}()

const (
	markYes = 1 + iota // a space or a capital: maybe a copy
	markDot            // maybe ".sync-conflict-"
)

// Locked runs fn holding the lock every write to MEMORY.md and the daily
// logs takes, for a writer outside this package (the merge of a conflict
// copy) that must not interleave with an append.
func Locked(home string, fn func() error) error {
	unlock, err := lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}
