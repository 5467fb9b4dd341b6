package main

import (
	"context"

	"agent/core"
	"agent/core/disk"
)

// openForReading opens the workspace for a command that only reads (search,
// reminders, profile show, sessions, doctor): when its disk refuses writes
// (full, read-only, not writable) state.db is opened read-only and the
// command shows what is there, saying once why nothing can be saved.
func (a *app) openForReading(ctx context.Context) (*core.Workspace, error) {
	ws, err := a.openWorkspace(ctx)
	if err == nil {
		// SQLite reads a WAL database on a read-only disk without a
		// word when its -shm file is there: the disk is asked too.
		if p := disk.Check(ws.Home, nil); p != nil {
			a.warnReadOnly(p)
		}
		return ws, nil
	}
	return a.openReadOnlyAfter(ctx, err)
}

// openReadOnlyAfter opens the workspace read-only when err, an open's
// failure, was the disk refusing writes, saying so once; any other error
// is returned as it is.
func (a *app) openReadOnlyAfter(ctx context.Context, err error) (*core.Workspace, error) {
	p := core.DiskProblem(err)
	if p == nil {
		return nil, err
	}
	home, herr := core.ResolveHome(a.homeFlag)
	if herr != nil {
		return nil, err
	}
	ws, rerr := core.OpenReadOnly(ctx, home, p)
	if rerr != nil {
		return nil, err
	}
	a.warnReadOnly(p)
	a.zone = core.WorkspaceZone(ctx, ws)
	return ws, nil
}

// warnReadOnly is the one line a reading command says on a disk that
// refuses writes: what works and what does not.
func (a *app) warnReadOnly(p *disk.Problem) {
	a.warnf("%v: showing what is there; nothing can be saved until that is fixed", p)
}

// inDiskTerms makes an error whose cause is the disk (full, read-only, not
// writable) a disk.Problem at the workspace, so that it is said as one
// (reportError) wherever the write failed.
func (a *app) inDiskTerms(err error) error {
	if err == nil || core.DiskProblem(err) != nil {
		return err
	}
	home, herr := core.ResolveHome(a.homeFlag)
	if herr != nil {
		return err
	}
	if p := disk.Classify(home, err); p != nil {
		return p
	}
	return err
}
