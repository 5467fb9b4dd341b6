package core

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"agent/core/devsync"
	"agent/core/forget"
	"agent/core/forgotten"
	"agent/index"
	"agent/memory/printable"
)

// OpenOptions say how opening a workspace (and syncing it) tells what it
// did on its way; the zero value says nothing.
type OpenOptions struct {
	// Warn reports a problem the command goes on past ("agent: …" on
	// stderr, even with --quiet).
	Warn func(msg string)
	// Info reports what the open changed: a conflict copy merged, another
	// device's forget applied (silenced by --quiet).
	Info func(msg string)
	// Ahead, when set, starts work that reads the workspace's files
	// alongside the open (chat's recall): it is called once the files are
	// whole (conflict copies merged), before state.db opens. When the open
	// then changes what it may have read, Workspace.Changed says so.
	Ahead func()
	// Now is the clock of the forgets applied (time.Now when nil).
	Now func() time.Time
}

func (o OpenOptions) warnf(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

func (o OpenOptions) infof(format string, args ...any) {
	if o.Info != nil {
		o.Info(fmt.Sprintf(format, args...))
	}
}

func (o OpenOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Open opens an initialised workspace and applies, in order, every rule a
// command needs before it reads anything: the conflict copies a file-sync
// tool left are merged (so the journals are whole), state.db opens and the
// devices' journals are appended to and replayed, then a forget a kill
// interrupted is finished and what another device forgot is forgotten
// here. It fails with ErrNoWorkspace when the home or its state.db does
// not exist, and never creates anything. A rule added here reaches every
// command.
func Open(ctx context.Context, home string) (*Workspace, error) {
	return OpenWith(ctx, home, OpenOptions{})
}

// OpenWith is Open, telling what it did through o.
func OpenWith(ctx context.Context, home string, o OpenOptions) (*Workspace, error) {
	if err := Locate(home); err != nil {
		return nil, err
	}
	o.foldCopies(ctx, home)
	if o.Ahead != nil {
		o.Ahead()
	}
	return o.openSettled(ctx, home)
}

// OpenFiles applies the rules a command that reads only the files and
// index.db needs (search, reindex), without opening state.db, whose checks
// and migrations would be most of such a command's start-up: conflict
// copies are merged, and a forget a kill interrupted (rare: the index may
// hold what it took back) is finished, which opens it.
func OpenFiles(ctx context.Context, home string, o OpenOptions) error {
	if err := Locate(home); err != nil {
		return err
	}
	o.foldCopies(ctx, home)
	if !forget.Interrupted(home) {
		return nil
	}
	ws, err := o.openSettled(ctx, home)
	if err != nil {
		return err
	}
	return ws.Close()
}

// openSettled opens state.db with the journals replayed, then settles the
// forgets.
func (o OpenOptions) openSettled(ctx context.Context, home string) (*Workspace, error) {
	ws, err := openJournalled(ctx, home)
	if err != nil {
		return nil, err
	}
	if ws.JournalErr != nil {
		// The command goes on with what this device has; what was not
		// written or read stays for the next command.
		o.warnf("%v; the next command tries again", ws.JournalErr)
	}
	o.SayRefused(ws)
	// One query for both: an error fails the open, as a forget that
	// cannot be looked for must not be read past.
	ready, n, err := forgotten.Waits(ctx, ws.State)
	if err != nil {
		ws.Close()
		return nil, err
	}
	if n > 0 {
		o.warnf("%d %s another device made %s for this workspace's forget key: run agent sync key there and agent sync key --add here",
			n, printable.Plural(n, "forget", "forgets"), printable.Plural(n, "waits", "wait"))
	}
	if ws.Changed, err = o.settleForgets(ctx, ws, ready > 0); err != nil {
		ws.Close()
		return nil, err
	}
	return ws, nil
}

// openJournalled opens state.db and brings the journals up to date, and
// no more: for the steps of a sync and a merge, which run the other rules
// themselves, and the doctor, which only looks.
func openJournalled(ctx context.Context, home string) (*Workspace, error) {
	if err := Locate(home); err != nil {
		return nil, err
	}
	db, err := openStateDB(ctx, filepath.Join(home, StateFile), false)
	if err != nil {
		return nil, err
	}
	ws := &Workspace{Home: home, State: db}
	ws.syncJournal(ctx)
	journalReplays.Add(1)
	return ws, nil
}

// journalReplays counts openJournalled's replays, for the tests that hold
// a command to the replays it needs.
var journalReplays atomic.Int64

// settleForgets finishes (or undoes) a forget a kill -9 interrupted, then
// forgets what another device forgot (its journal said so), before
// anything reads what they change (pending: one waits and its key is
// here). Without either it is a stat; acted says one ran.
func (o OpenOptions) settleForgets(ctx context.Context, ws *Workspace, pending bool) (acted bool, err error) {
	if !forget.Interrupted(ws.Home) && !pending {
		return false, nil
	}
	li := &lazyIndex{home: ws.Home, warn: o.Warn}
	defer li.close()
	if err := forget.Recover(ctx, ws.Home, ws.State, li); err != nil {
		return true, err
	}
	return true, o.forgetPending(ctx, ws.Home, ws.State)
}

// ForgetPending forgets here what other devices forgot, for a command
// that made it possible (a forget key added): as forgetPending.
func (o OpenOptions) ForgetPending(ctx context.Context, home string, db *sql.DB) error {
	return o.forgetPending(ctx, home, db)
}

// forgetPending forgets here what other devices forgot (journalled forgets
// replayed at the open). It asks the next sync to rewrite the history
// itself, so its callers need not.
func (o OpenOptions) forgetPending(ctx context.Context, home string, db *sql.DB) error {
	if pending, err := forgotten.HasPending(ctx, db); err != nil || !pending {
		return err
	}
	// The history is asked to be rewritten before the files change: a
	// kill between the change and the mark would leave a merge commit
	// holding the phrase to be pushed as is. (A forget that finds nothing
	// here costs one needless rewrite, once.)
	if err := devsync.MarkRewrite(home); err != nil {
		return err
	}
	li := &lazyIndex{home: home, warn: o.Warn}
	defer li.close()
	res, err := forget.ApplyPending(ctx, home, db, li, o.now())
	for _, r := range res {
		o.infof("forgot what another device forgot: %d %s rewritten, %d stored %s changed", r.Files, printable.Plural(r.Files, "file", "files"),
			r.Rows, printable.Plural(r.Rows, "value", "values"))
	}
	return err
}

// foldCopies merges the conflict copies a file-sync tool left of the
// memory files into their originals (a directory listing when there are
// none). A copy it cannot merge stays, and is said; the command goes on.
func (o OpenOptions) foldCopies(ctx context.Context, home string) {
	folded, err := devsync.FoldCopies(home)
	for _, f := range folded {
		o.infof("merged %s, a copy a file-sync tool left, into %s", printable.Escape(f.Copy), printable.Escape(f.Into))
	}
	if err != nil {
		o.warnf("%v", err)
	}
	if len(folded) > 0 {
		// A copy is merged by union, with no common version to stand on:
		// a line this device forgot, still in the copy, came back.
		o.forgetAgain(ctx, home, folded)
	}
	var into []string
	journals := false
	for _, f := range folded {
		if f.Conflicts > 0 {
			into = append(into, f.Into)
		}
		journals = journals || strings.HasPrefix(f.Into, devsync.JournalDir+"/")
	}
	o.warnConflicts(home, into)
	// A journal that gained another device's lines is replayed, as after a sync.
	if journals {
		if err := o.replayJournals(ctx, home); err != nil {
			o.warnf("replay the journals: %v", err)
		}
	}
}

// forgetAgain replaces what this device forgot in the files conflict
// copies were merged into, before anything reads them.
func (o OpenOptions) forgetAgain(ctx context.Context, home string, folded []devsync.Folded) {
	db, err := OpenState(ctx, home)
	if err != nil {
		return // not a workspace yet: nothing was forgotten in it
	}
	defer db.Close()
	var rels []string
	for _, f := range folded {
		rels = append(rels, f.Into)
	}
	if _, err := forget.Again(ctx, home, db, rels); err != nil {
		o.warnf("%v", err)
	}
}

// warnConflicts names the places where both devices changed the same
// lines, so the user hears of them when they arrive, not only from doctor.
func (o OpenOptions) warnConflicts(home string, files []string) {
	if len(files) == 0 {
		return // nil would mean every file a merge writes
	}
	for _, c := range devsync.FindConflicts(home, files) {
		o.warnf("%s:%d: both devices changed these lines; both versions are kept there (keep one, delete the note)", printable.Escape(c.Path), c.Line)
	}
}

// replayJournals folds every device's journal (profile, reminders, jobs)
// into this device's state.db after a sync or a file-sync tool brought
// journal lines in: opening appends this device's changes not yet written
// and replays the others' (core/journal); a forget another device
// journalled is then applied here (by its hash), and when it changed files
// the next sync rewrites the history; closing appends what the replay
// itself changed.
func (o OpenOptions) replayJournals(ctx context.Context, home string) error {
	ws, err := openJournalled(ctx, home)
	if err != nil {
		return err
	}
	o.SayRefused(ws)
	return errors.Join(ws.JournalErr, o.forgetPending(ctx, home, ws.State), ws.Close())
}

// SayRefused names the journal lines the open refused (core/journal checks
// each as the same change made here is), once each.
func (o OpenOptions) SayRefused(ws *Workspace) {
	for _, r := range ws.JournalRefused {
		o.warnf("%s", r)
	}
}

// lazyIndex opens index.db only if a forget being settled needs it.
type lazyIndex struct {
	home string
	warn func(string)
	ix   *index.Index
}

func (l *lazyIndex) open(ctx context.Context) error {
	if l.ix != nil {
		return nil
	}
	ix, err := index.Open(ctx, l.home, l.warn)
	l.ix = ix
	return err
}

func (l *lazyIndex) Matching(ctx context.Context, match func(string) bool) (int, [][]byte, error) {
	if err := l.open(ctx); err != nil {
		return 0, nil, err
	}
	return l.ix.Matching(ctx, match)
}

func (l *lazyIndex) Purge(ctx context.Context, units [][]byte) error {
	if err := l.open(ctx); err != nil {
		return err
	}
	return l.ix.Purge(ctx, units)
}

func (l *lazyIndex) close() {
	if l.ix != nil {
		l.ix.Close()
	}
}
