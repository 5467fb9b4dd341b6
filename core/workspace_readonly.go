package core

import (
	"context"
	"errors"
	"path/filepath"

	"agent/core/disk"
	"agent/core/statedb"
)

// ErrCannotWrite marks a write the workspace's disk refused (full,
// read-only, not writable): a disk.Problem, never a damaged file.
var ErrCannotWrite = disk.ErrCannotWrite

// OpenReadOnly opens an initialised workspace for reading only: state.db
// is read without writing a byte (not its -wal, not the journals), for a
// command that only shows what is there on a disk that refuses writes. The
// returned workspace's ReadOnly says why; its Close writes nothing.
func OpenReadOnly(ctx context.Context, home string, why *disk.Problem) (*Workspace, error) {
	if err := Locate(home); err != nil {
		return nil, err
	}
	db, err := statedb.OpenReadOnly(ctx, filepath.Join(home, StateFile), stateMigrations())
	if err != nil {
		return nil, err
	}
	return &Workspace{Home: home, State: db, ReadOnly: why}, nil
}

// DiskProblem is the disk.Problem err carries, or nil.
func DiskProblem(err error) *disk.Problem {
	var p *disk.Problem
	if errors.As(err, &p) {
		return p
	}
	return nil
}
