package core

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path/filepath"

	"agent/core/compact"
	"agent/core/disk"
	"agent/core/distill"
	"agent/core/forgotten"
	"agent/core/importer"
	"agent/core/jobs"
	"agent/core/journal"
	"agent/core/mcp"
	"agent/core/memrev"
	"agent/core/reminders"
	"agent/core/skills"
	"agent/core/statedb"
	"agent/index/sqlitedb"
	"agent/profile"
	"agent/soul"
	"agent/soul/revisions"
)

//go:embed migrations/*.sql
var sessionMigrations embed.FS

// ErrStateDB marks a state.db that cannot be used: corrupt, foreign, or from a
// newer agent. The file is never modified when this is returned.
var ErrStateDB = statedb.ErrUnusable

// stateMigrations are the packages' schemas for state.db, applied in this
// order.
func stateMigrations() []statedb.Set {
	return []statedb.Set{
		{Component: "profile", Files: profile.Migrations},
		// Before soul, memrev and skills: their second migrations move
		// their older tables into it. (After profile, whose pages a
		// transcript test knows.)
		{Component: "revisions", Files: revisions.Migrations},
		{Component: "soul", Files: soul.Migrations},
		{Component: "core", Files: sessionMigrations, Steps: coreSteps},
		{Component: "compact", Files: compact.Migrations},
		{Component: "memrev", Files: memrev.Migrations},
		{Component: "distill", Files: distill.Migrations},
		{Component: "mcp", Files: mcp.Migrations},
		{Component: "reminders", Files: reminders.Migrations},
		{Component: "jobs", Files: jobs.Migrations},
		{Component: "skills", Files: skills.Migrations},
		{Component: "importer", Files: importer.Migrations},
		{Component: "forget", Files: forgotten.Migrations}, // the forgotten table, written by core/forgotten
		// Last: its triggers watch profile's, reminders' and jobs' tables.
		{Component: "journal", Files: journal.Migrations},
	}
}

// openStateDB opens state.db with every package's migrations.
func openStateDB(ctx context.Context, file string, create bool) (*sql.DB, error) {
	db, err := statedb.Open(ctx, file, create, stateMigrations())
	if err != nil {
		return nil, diskFirst(file, err)
	}
	return db, nil
}

// diskFirst tells a disk that refused a write (full, read-only, not
// writable) from a damaged file: opening a WAL database writes its -shm
// file, so on a full or read-only disk even a sound state.db fails to
// open, and calling it unusable sent people to restore a backup of a file
// that was fine. The error is then a disk.Problem, not ErrStateDB.
func diskFirst(file string, err error) error {
	if sqlitedb.IsCorrupt(err) {
		return err
	}
	if p := disk.Check(filepath.Dir(file), err); p != nil {
		return fmt.Errorf("open %s: %w", file, p)
	}
	return err
}
