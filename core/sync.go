package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"agent/core/devsync"
	"agent/core/forget"
	"agent/core/journal"
	"agent/soul"
)

// Sync shares the workspace with the user's other devices through git
// (devsync.Sync) with every rule of opening around it: conflict copies a
// file-sync tool left are merged first, this device's record changes are
// in its journal before the commit, and after a merge what one device
// forgot stays forgotten on both before anything is pushed. so carries
// what the caller decides (the remote, the merge driver, the device's
// name); Replay, AfterMerge and Warn are set here.
func Sync(ctx context.Context, so devsync.Options, o OpenOptions) (devsync.Report, error) {
	if err := Locate(so.Home); err != nil {
		return devsync.Report{}, err
	}
	home := so.Home
	o.foldCopies(ctx, home) // a folder also shared by a file-sync tool
	// This device's record changes are in its journal before the commit
	// (each command appends them at close; a crash's are appended here).
	// Appended, not replayed: the other devices' lines are replayed once,
	// after the merge that brings them (AfterMerge), and the ones a
	// file-sync tool brought were replayed by the command that saw them
	// (or by foldCopies just now).
	if err := flushJournal(ctx, home); err != nil {
		if ctx.Err() != nil {
			return devsync.Report{}, ctx.Err() // stopped: nothing exchanged, nothing to warn of
		}
		o.warnf("journal: %v; the next sync carries what was not written", err)
	}
	o.syncHooks(&so)
	rep, err := devsync.Sync(ctx, so)
	if err != nil {
		return rep, err
	}
	o.warnConflicts(home, rep.Files)
	return rep, nil
}

// Clone starts this device's workspace at home from the one other devices
// sync to url: the files come from there; state.db, the index and all else
// machine-local are made by the init that follows.
func Clone(ctx context.Context, url string, so devsync.Options, o OpenOptions) error {
	o.syncHooks(&so)
	return devsync.Clone(ctx, url, so)
}

// flushJournal appends this device's record changes not yet in its
// journal, reading no other device's.
func flushJournal(ctx context.Context, home string) error {
	db, err := OpenState(ctx, home)
	if err != nil {
		return err
	}
	return errors.Join(journal.Flush(ctx, db, home, time.Now), db.Close())
}

// syncHooks sets the steps of a sync that are the workspace's rules.
func (o OpenOptions) syncHooks(so *devsync.Options) {
	home := so.Home
	so.Replay = func(ctx context.Context) error { return o.replayJournals(ctx, home) }
	so.AfterMerge = func(ctx context.Context, files []string) error { return o.forgetAfterMerge(ctx, home, files) }
	so.Warn = o.Warn
	so.Forgotten = forget.Marker
}

// forgetAfterMerge keeps what was forgotten forgotten across a merge: the
// phrases this device forgot are replaced again in the files the merge
// changed (another device may have written one before it heard of the
// forget), before the journals are replayed; then the journals are
// replayed and what another device forgot (a forget entry in its journal)
// is searched for here and replaced. Either asks this sync to rewrite the
// history before it pushes: the merge commit holds the phrase.
func (o OpenOptions) forgetAfterMerge(ctx context.Context, home string, files []string) error {
	db, err := OpenState(ctx, home)
	if err != nil {
		return err
	}
	again, err := forget.Again(ctx, home, db, files)
	db.Close()
	if err != nil {
		return err
	}
	ws, err := openJournalled(ctx, home)
	if err != nil {
		return err
	}
	if ws.JournalErr != nil {
		// Not a reason to stop the sync: what was not read is read at
		// the next command, and a forget in it applied then.
		o.warnf("%v; the next command tries again", ws.JournalErr)
	}
	o.SayRefused(ws)
	err = o.forgetPending(ctx, home, ws.State)
	if cerr := ws.Close(); err == nil {
		err = cerr
	}
	if err != nil || len(again) == 0 {
		return err
	}
	return devsync.MarkRewrite(home)
}

// KeepTheirSoul records the other device's SOUL.md (theirs) as a revision
// before the merged one replaces this device's (ours), when home is a
// workspace: the merge driver's step for SOUL.md (git runs the driver at
// the top of the work tree, mid-merge, so nothing else of opening runs).
func KeepTheirSoul(ctx context.Context, home, oursPath, theirsPath string, now func() time.Time) error {
	ours, err := os.ReadFile(oursPath)
	if err != nil {
		return err
	}
	theirs, err := os.ReadFile(theirsPath)
	if err != nil {
		return err
	}
	if string(ours) == string(theirs) {
		return nil
	}
	// state.db alone: the sync that runs git holds the journals' lock
	// while it merges, so the driver must not open the workspace whole
	// (which appends to a journal).
	db, err := OpenState(ctx, home)
	if errors.Is(err, ErrNoWorkspace) {
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = soul.NewStore(db, filepath.Join(home, SoulFile), now).KeepVersion(ctx, string(theirs), "the other device's version, kept when a sync merged SOUL.md")
	return err
}
