package devsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agent/memory/printable"
)

// ErrDiverged is a remote branch that does not continue what this device
// last synced and is not a forget this device can verify: sync stops and
// changes nothing until the user says which history to keep.
var ErrDiverged = errors.New("diverged")

// Refs sync keeps in the repository.
const (
	// syncedRef is the remote commit this device last synced with: what
	// the next fetch must continue. refs/remotes/origin/* cannot say it,
	// since a fetch moves them before anything is checked.
	syncedRef = "refs/agent/synced"
	// keptPrefix holds a history a --keep-local or --take-remote set
	// aside (the remote's, or this device's), so that choice loses
	// nothing: git log refs/agent/kept/… shows it, git merge takes it back.
	keptPrefix = "refs/agent/kept/"
)

// keepRef sets rev aside under refs/agent/kept/WHAT-TIME and returns the
// ref's name.
func keepRef(ctx context.Context, g *git, what, rev string) (string, error) {
	ref := keptPrefix + what + "-" + time.Now().UTC().Format("20060102-150405")
	if _, err := g.run(ctx, "update-ref", ref, rev); err != nil {
		return "", fmt.Errorf("sync: keep %s: %w", what, err)
	}
	return ref, nil
}

// diverged is the error said when the remote's branch does not continue
// what this device last synced.
func diverged(prev, cur, why string) error {
	return fmt.Errorf("sync: the remote's branch (%.7s) does not continue what this device last synced (%.7s): it was restored from an older copy, replaced, or holds another workspace, and it is not a forget this device can verify (%s); nothing was changed here. "+
		"To keep this device's history and push it back: agent sync --keep-local (the remote's is kept here under %s); "+
		"to take the remote's: agent sync --take-remote (this device's changes since the last sync are carried over, its history kept under %s): %w",
		cur, prev, why, keptPrefix+"remote-…", keptPrefix+"local-…", ErrDiverged)
}

// verifyForget says whether the tree of cur is the tree of prev with
// forgets applied, and only that plus additions: every line prev held that
// cur lacks is, in cur, the same line with parts replaced by marker (what
// a forget leaves). A file removed, a line removed or changed otherwise,
// is not a forget: why says the first such place. With marker "" nothing
// verifies. What is checked is the shape, not the phrase: who can push to
// the remote can remove text with an ordinary commit too; what this
// protects is the history and what this device wrote, which an old,
// replaced or unrelated branch would take away.
func verifyForget(ctx context.Context, g *git, prev, cur, marker string) (ok bool, why string, err error) {
	if marker == "" {
		return false, "no forget is known here", nil
	}
	out, err := g.run(ctx, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", prev, cur)
	if err != nil {
		return false, "", fmt.Errorf("sync: compare the remote's history: %w", err)
	}
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(recs[i])
		rel := recs[i+1]
		if len(f) < 5 {
			continue
		}
		switch f[4] {
		case "A":
			continue
		case "D":
			return false, "it removes " + printable.Escape(rel), nil
		}
		old, err := g.run(ctx, "cat-file", "blob", f[2])
		if err != nil {
			return false, "", err
		}
		new, err := g.run(ctx, "cat-file", "blob", f[3])
		if err != nil {
			return false, "", err
		}
		if isJournal(rel) {
			// A forget rewrites a journal line whole (core/forget): the
			// lines are compared as the JSON they hold.
			old, new = canonicalLines(old), canonicalLines(new)
		}
		if n, line := forgetsIn(old, new, marker); n < 0 {
			return false, fmt.Sprintf("it changes line %d of %s", line, printable.Escape(rel)), nil
		}
	}
	// (A rewrite that removed nothing, a forget that found nothing on the
	// other device, is taken too: taking it loses nothing.)
	return true, "", nil
}

// forgetsIn compares a file's two versions: how many of old's lines new
// holds only with parts replaced by marker, or -1 and the (1-based) line
// of old that new lacks otherwise. Each line of new stands for one line of
// old at most, so one marker cannot explain many removed lines.
//
// A line of old is matched to the first unused marked line of new that
// explains it. A forget keeps the lines' order, so that is the first unused
// one, and the search starts there: linear in the lines. The lines are the
// remote's, and a hostile order (each removed line explained only by a
// marked line far down) would cost removed × marked matches: past
// forgetWork steps per line of both versions the rewrite is taken as
// changing the line being matched (the sync refuses it) rather than paid.
func forgetsIn(old, new, marker string) (n, line int) {
	have := map[string]int{}
	newLines := strings.Split(new, "\n")
	for _, l := range newLines {
		have[l]++
	}
	type missing struct {
		line int
		text string
	}
	var lack []missing
	oldLines := strings.Split(old, "\n")
	for i, l := range oldLines {
		if have[l] > 0 {
			have[l]--
			continue
		}
		lack = append(lack, missing{i + 1, l})
	}
	if len(lack) == 0 {
		return 0, 0
	}
	// The lines of new that no line of old is: those with the marker may
	// each stand for one forgotten line.
	var marked []pattern
	for _, l := range newLines {
		if have[l] == 0 || !strings.Contains(l, marker) {
			continue
		}
		have[l]--
		marked = append(marked, strings.Split(l, marker))
	}
	budget := forgetWork * (len(oldLines) + len(newLines))
	first := 0 // marked[:first] are all used
	for _, m := range lack {
		found := -1
		for j := first; j < len(marked); j++ {
			if budget--; budget < 0 {
				return -1, m.line
			}
			if marked[j] != nil && marked[j].match(m.text) {
				found = j
				break
			}
		}
		if found < 0 {
			return -1, m.line
		}
		marked[found] = nil
		for first < len(marked) && marked[first] == nil {
			first++
		}
		n++
	}
	return n, 0
}

// forgetWork bounds forgetsIn's steps per line of the two versions.
const forgetWork = 64

// pattern is a marked line: the text around each marker, where the
// forgotten line held some text (at least one character) in each place.
type pattern []string

// match says whether s is the line p stands for, as
// ^p[0](.+?)p[1]…(.+?)p[last]$ would (each part placed leftmost, which
// finds a match whenever one exists), without compiling one.
func (p pattern) match(s string) bool {
	last := len(p) - 1
	need := last // a character at least in each place
	for _, q := range p {
		need += len(q)
	}
	if len(s) < need || !strings.HasPrefix(s, p[0]) || !strings.HasSuffix(s, p[last]) {
		return false
	}
	i, end := len(p[0]), len(s)-len(p[last])
	for _, mid := range p[1:last] {
		if i+1 > end {
			return false
		}
		k := strings.Index(s[i+1:end], mid)
		if k < 0 {
			return false
		}
		i += 1 + k + len(mid)
	}
	return end-i >= 1
}

// canonicalLines re-encodes each line that is JSON (keys sorted, one
// spelling of each character), leaving the others as they are.
func canonicalLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		var v any
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			lines[i] = string(b)
		}
	}
	return strings.Join(lines, "\n")
}
