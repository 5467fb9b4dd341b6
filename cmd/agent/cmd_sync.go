package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/devsync"
	"agent/core/forget"
	"agent/core/jobs"
	"agent/core/printable"
	"agent/soul"
)

func (a *app) syncCommand() *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "share the workspace with your other devices through git: commit, fetch, merge, push",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Usage: "the git remote to sync with (any URL your git can push to); remembered as origin once a fetch from it worked"},
			&cli.BoolFlag{Name: "keep-local", Usage: "when the remote's branch does not continue what this device last synced (or holds what sync never takes): push this device's history over it (the remote's is kept here under refs/agent/kept/)"},
			&cli.BoolFlag{Name: "take-remote", Usage: "when the remote's branch does not continue what this device last synced: move onto it, carrying over this device's changes since the last sync (its history is kept under refs/agent/kept/)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("sync takes no arguments (the remote is --remote URL)")
			}
			home, err := core.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			if err := core.Locate(home); err != nil {
				return err
			}
			a.foldCopies(ctx, home) // a folder also shared by a file-sync tool
			// This device's record changes are in its journal before the
			// commit (each command appends them at close; a crash's are
			// appended here).
			if err := a.journalReplay(home)(ctx); err != nil {
				a.warnf("journal: %v; the next sync carries what was not written", err)
			}
			o, err := a.syncOptions(home)
			if err != nil {
				return err
			}
			o.Remote = cmd.String("remote")
			o.KeepLocal, o.TakeRemote = cmd.Bool("keep-local"), cmd.Bool("take-remote")
			if o.KeepLocal && o.TakeRemote {
				return usagef("--keep-local and --take-remote say opposite things: give one")
			}
			rep, err := devsync.Sync(ctx, o)
			if err != nil {
				return err
			}
			a.warnConflicts(home, rep.Files)
			if a.jsonOut {
				return a.writeJSON(rep)
			}
			a.infof("%s", rep.Summary())
			return nil
		},
	}
}

// syncOptions are what every sync of home shares: the merge driver is this
// binary, each device is named by its host name.
func (a *app) syncOptions(home string) (devsync.Options, error) {
	exe, err := os.Executable()
	if err != nil {
		return devsync.Options{}, fmt.Errorf("sync: find the agent binary for the merge driver: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return devsync.Options{}, fmt.Errorf("sync: find the agent binary for the merge driver: %w", err)
	}
	device, _ := os.Hostname()
	return devsync.Options{
		Home:      home,
		Driver:    jobs.ShellQuote(exe) + " merge-file -- %O %A %B %P",
		Device:    device,
		Forgotten: forget.Marker,
		Replay:    a.journalReplay(home),
		AfterMerge: func(ctx context.Context, files []string) error {
			return a.forgetAfterMerge(ctx, home, files)
		},
		Warn: func(s string) { a.warnf("%s", s) },
	}, nil
}

// journalReplay folds every device's journal (profile, reminders, jobs)
// into this device's state.db after a sync or a file-sync tool brought
// journal lines in: opening the workspace appends this device's changes
// not yet written and replays the others' (core/journal, at core.Open);
// a forget another device journalled is then applied here (by its hash),
// and when it changed files the next sync rewrites the history; closing
// appends what the replay itself changed.
func (a *app) journalReplay(home string) func(context.Context) error {
	return func(ctx context.Context) error {
		ws, err := core.Open(ctx, home)
		if err != nil {
			return err
		}
		return errors.Join(ws.JournalErr, a.forgetPending(ctx, home, ws.State), ws.Close())
	}
}

// warnConflicts names the places where both devices changed the same
// lines, so the user hears of them at the sync, not only from doctor.
func (a *app) warnConflicts(home string, files []string) {
	if len(files) == 0 {
		return // nil would mean every file a merge writes
	}
	for _, c := range devsync.FindConflicts(home, files) {
		a.warnf("%s:%d: both devices changed these lines; both versions are kept there (keep one, delete the note)", printable.Escape(c.Path), c.Line)
	}
}

// forgetAfterMerge keeps what was forgotten forgotten across a merge: the
// phrases this device forgot are replaced again in the files the merge
// changed (another device may have written one before it heard of the
// forget), before the journals are replayed; then the journals are
// replayed and what another device forgot (a forget entry in its journal)
// is searched for here and replaced. Either asks this sync to rewrite the
// history before it pushes: the merge commit holds the phrase.
func (a *app) forgetAfterMerge(ctx context.Context, home string, files []string) error {
	db, err := core.OpenState(ctx, home)
	if err != nil {
		return err
	}
	again, err := forget.Again(ctx, home, db, files)
	db.Close()
	if err != nil {
		return err
	}
	ws, err := core.Open(ctx, home)
	if err != nil {
		return err
	}
	if ws.JournalErr != nil {
		// Not a reason to stop the sync: what was not read is read at
		// the next command, and a forget in it applied then.
		a.warnf("%v; the next command tries again", ws.JournalErr)
	}
	err = a.forgetPending(ctx, home, ws.State)
	if cerr := ws.Close(); err == nil {
		err = cerr
	}
	if err != nil || len(again) == 0 {
		return err
	}
	return devsync.MarkRewrite(home)
}

// forgetPending forgets here what other devices forgot (journalled forgets
// replayed at the open). It asks the next sync to rewrite the history
// itself, so its callers need not.
func (a *app) forgetPending(ctx context.Context, home string, db *sql.DB) error {
	if pending, err := forget.HasPending(ctx, db); err != nil || !pending {
		return err
	}
	// The history is asked to be rewritten before the files change: a
	// kill between the change and the mark would leave a merge commit
	// holding the phrase to be pushed as is. (A forget that finds nothing
	// here costs one needless rewrite, once.)
	if err := devsync.MarkRewrite(home); err != nil {
		return err
	}
	li := &lazyIndex{a: a, home: home}
	defer li.close()
	res, err := forget.ApplyPending(ctx, home, db, li, a.now())
	for _, r := range res {
		a.infof("forgot what another device forgot: %d %s rewritten, %d stored %s changed", r.Files, plural(r.Files, "file", "files"),
			r.Rows, plural(r.Rows, "value", "values"))
	}
	return err
}

// foldCopies merges the conflict copies a file-sync tool left of the
// memory files into their originals (a directory listing when there are
// none). A copy it cannot merge stays, and is said; the command goes on.
func (a *app) foldCopies(ctx context.Context, home string) {
	folded, err := devsync.FoldCopies(home)
	for _, f := range folded {
		a.infof("merged %s, a copy a file-sync tool left, into %s", printable.Escape(f.Copy), printable.Escape(f.Into))
	}
	if err != nil {
		a.warnf("%v", err)
	}
	if len(folded) > 0 {
		// A copy is merged by union, with no common version to stand on:
		// a line this device forgot, still in the copy, came back.
		a.forgetAgain(ctx, home, folded)
	}
	var into []string
	journals := false
	for _, f := range folded {
		if f.Conflicts > 0 {
			into = append(into, f.Into)
		}
		journals = journals || strings.HasPrefix(f.Into, devsync.JournalDir+"/")
	}
	a.warnConflicts(home, into)
	// A journal that gained another device's lines is replayed, as after a sync.
	if journals {
		if err := a.journalReplay(home)(ctx); err != nil {
			a.warnf("replay the journals: %v", err)
		}
	}
}

// forgetAgain replaces what this device forgot in the files conflict
// copies were merged into, before anything reads them.
func (a *app) forgetAgain(ctx context.Context, home string, folded []devsync.Folded) {
	db, err := core.OpenState(ctx, home)
	if err != nil {
		return // not a workspace yet: nothing was forgotten in it
	}
	defer db.Close()
	var rels []string
	for _, f := range folded {
		rels = append(rels, f.Into)
	}
	if _, err := forget.Again(ctx, home, db, rels); err != nil {
		a.warnf("%v", err)
	}
}

// mergeFileCommand is the git merge driver sync registers (%O %A %B %P):
// git calls it for memory files, in the workspace's top directory.
func (a *app) mergeFileCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge-file",
		Usage:     "git merge driver for memory files (registered by agent sync)",
		ArgsUsage: "BASE OURS THEIRS PATH",
		Hidden:    true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 4 {
				return usagef("usage: agent merge-file BASE OURS THEIRS PATH (git's %%O %%A %%B %%P)")
			}
			base, ours, theirs, rel := cmd.Args().Get(0), cmd.Args().Get(1), cmd.Args().Get(2), cmd.Args().Get(3)
			if filepath.ToSlash(filepath.Clean(rel)) == core.SoulFile {
				if err := a.keepTheirSoul(ctx, ours, theirs); err != nil {
					return err
				}
			}
			r, err := devsync.DriverFiles(base, ours, theirs, rel)
			if err != nil {
				return err
			}
			if r.Conflicts > 0 {
				a.warnf("%s: both devices changed the same lines in %d place(s); both versions are kept (agent doctor names them)", printable.Escape(rel), r.Conflicts)
			}
			return nil
		},
	}
}

// keepTheirSoul records the other device's SOUL.md as a revision before the
// merged one replaces this device's, when this directory is a workspace
// (git runs the driver at the top of the work tree).
func (a *app) keepTheirSoul(ctx context.Context, oursPath, theirsPath string) error {
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
	home, err := os.Getwd()
	if err != nil {
		return err
	}
	// state.db alone: the sync that runs git holds the journals' lock
	// while it merges, so the driver must not open the workspace whole
	// (which appends to a journal).
	db, err := core.OpenState(ctx, home)
	if errors.Is(err, core.ErrNoWorkspace) {
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = soul.NewStore(db, filepath.Join(home, core.SoulFile), a.now).KeepVersion(ctx, string(theirs), "the other device's version, kept when a sync merged SOUL.md")
	return err
}
