package index

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// A watcher may vouch for the index only where every change to a memory
// file reaches its inotify watches. Two things break that, and each walk
// looks for them (the watcher walks after every event, so its knowledge is
// as fresh as its index):
//
//   - a file with more than one hard link: an edit through its other name,
//     in a directory nobody watches, raises no event here;
//   - a directory on a filesystem whose changes may come from elsewhere
//     (NFS, SMB, FUSE, 9p, …): inotify sees only this machine's writes.
//
// While either holds, the watcher answers "unsure" and searches walk.

// untrusted is why a walk found the tree unfit for vouching, "" when fit.
type untrusted struct{ why string }

// note keeps the first reason found (the walk may run in parallel).
func (u *untrusted) note(why string) {
	if u.why == "" {
		u.why = why
	}
}

func hardLinked(rel string, nlink uint64) string {
	return fmt.Sprintf("%s has %d hard links: an edit through another name raises no event here", rel, nlink)
}

// errNotWalked: no update has looked at the files yet.
var errNotWalked = errors.New("the files have not been walked yet")

// vouchState is what the last walk found, for Vouchable.
type vouchState struct{ p atomic.Pointer[string] }

func (v *vouchState) set(why string) { v.p.Store(&why) }

// Vouchable reports whether a watcher may vouch for this index's freshness:
// nil when the last walk of the files found nothing that inotify could miss,
// else an error saying what it found (a hard-linked file, a network or FUSE
// filesystem). A watcher asks it after each refresh, before answering.
func (ix *Index) Vouchable() error {
	why := ix.vouch.p.Load()
	switch {
	case why == nil:
		return errNotWalked
	case *why != "":
		return errors.New(*why)
	}
	return nil
}
