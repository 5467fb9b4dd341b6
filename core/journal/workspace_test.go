package journal_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"time"

	"agent/core/jobs"
	"agent/core/journal"
	"agent/core/reminders"
	"agent/core/statedb"
	"agent/profile"
	"agent/soul/revisions"
)

// workspace is what these tests need of core.Workspace: state.db with the
// tables the journal watches, synced with the journals when opened and
// appended to them when closed, as core's Open and Close do. It is built
// here, from the packages below journal, so that journal's tests do not
// import core (core's layering, TestLayers).
type workspace struct {
	Home       string
	State      *sql.DB
	JournalErr error
}

// sets are the migrations of the tables the journal's triggers watch, in
// core's order (stateMigrations), the journal last.
var sets = []statedb.Set{
	{Component: "profile", Files: profile.Migrations},
	{Component: "revisions", Files: revisions.Migrations},
	{Component: "reminders", Files: reminders.Migrations},
	{Component: "jobs", Files: jobs.Migrations},
	{Component: "journal", Files: journal.Migrations},
}

func openState(ctx context.Context, home string, create bool) (*workspace, error) {
	db, err := statedb.Open(ctx, filepath.Join(home, "state.db"), create, sets)
	if err != nil {
		return nil, err
	}
	w := &workspace{Home: home, State: db}
	if _, err := journal.Sync(ctx, db, home, time.Now); err != nil {
		w.JournalErr = err
	}
	return w, nil
}

// initWorkspace is core.Init for these tests: state.db created.
func initWorkspace(ctx context.Context, home string) (*workspace, struct{}, error) {
	w, err := openState(ctx, home, true)
	return w, struct{}{}, err
}

// openWorkspace is core.Open for these tests.
func openWorkspace(ctx context.Context, home string) (*workspace, error) {
	return openState(ctx, home, false)
}

// Close appends this process's changes to the device's journal, then
// closes state.db, as core's Close does.
func (w *workspace) Close() error {
	ferr := journal.Flush(context.Background(), w.State, w.Home, time.Now)
	return errors.Join(ferr, w.State.Close())
}
