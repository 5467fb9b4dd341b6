// Package core is the runtime: it opens the workspace, gathers a turn and
// runs it. It is the only package that knows about all the others; the
// leaves (profile, soul, memory, index, prompts) never import it.
//
// Inside core, packages stand in layers; a package imports only packages
// of lower layers (its tests too), and nothing imports core but cmd/agent
// and the one layer above it:
//
//	0  llm, statedb, when, disk, ollamatest, mcp/mcptest, testhome: plain
//	   types, state.db's opening, the time shown to a person, the disk's
//	   refusals in the user's words, test servers and homes
//	1  window (fits a turn into num_ctx), ollama (the model adapter),
//	   callview, mcp, embed, memrev, skills, importer, jobs, reminders,
//	   forgotten (the record of forgets, and the forget key),
//	   watch (keeps the index fresh), the test servers' commands
//	2  distill (digests over memrev), journal (records as per-device text)
//	3  compact (summaries over distill), forget, devsync (sync over git)
//	4  core itself: Chat, Workspace, Sessions, the tools and the doctor
//	5  mcpserve (agent mcp serve: memory for other agents, through core's
//	   recall and memory reader)
//
// TestLayers checks it over `go list`; its exceptions (tests that still
// open a workspace through core) are listed there, and only ever shrink.
package core

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"agent/core/disk"
	"agent/core/journal"
	"agent/memory/confined"
)

// Names of the files inside a workspace.
const (
	SoulFile   = "SOUL.md"
	MemoryFile = "MEMORY.md"
	LogsDir    = "logs"
	StateFile  = "state.db"
	IndexFile  = "index.db"
	lockFile   = ".init.lock"
)

// ErrNoWorkspace is returned by Open when the home has not been initialised.
var ErrNoWorkspace = errors.New("no workspace")

// Workspace is an open workspace: its home directory and precious state.db.
// Several processes may hold the same workspace open at once.
type Workspace struct {
	Home  string
	State *sql.DB
	// JournalErr is why the other devices' journals could not be read at
	// open (core/journal): the command goes on with what this device has.
	JournalErr error
	// Changed says the open changed the workspace after OpenOptions.Ahead
	// started (it settled a forget): what Ahead read may hold what the
	// forget took back.
	Changed bool
	// JournalRefused names each line of another device's journal the open
	// refused (file, line, why: core/journal checks each as a change made
	// here is), once: the command says them on stderr.
	JournalRefused []journal.Refusal
	// ReadOnly, when set, is why the workspace was opened for reading only
	// (OpenReadOnly): nothing may be written to it.
	ReadOnly *disk.Problem
}

// ResolveHome picks the workspace directory: the --home flag, else
// $AGENT_HOME, else ~/.agent. The result is absolute.
func ResolveHome(flag string) (string, error) {
	home := flag
	if home == "" {
		home = os.Getenv("AGENT_HOME")
	}
	if home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find your home directory (set --home or AGENT_HOME): %w", err)
		}
		home = filepath.Join(dir, ".agent")
	}
	return filepath.Abs(home)
}

// Path returns the absolute path of a workspace-relative name.
func (w *Workspace) Path(rel string) string { return filepath.Join(w.Home, rel) }

// Locate checks that home is an initialised workspace without opening its
// database: commands that need only the files and the index (search) use it
// to give the same "no workspace" error as Open, for less.
func Locate(home string) error {
	if _, err := os.Stat(filepath.Join(home, StateFile)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w at %s (run: agent init)", ErrNoWorkspace, home)
		}
		return fmt.Errorf("open workspace %s: %w", home, err)
	}
	return nil
}

// OpenState opens home's state.db alone, without appending to or replaying
// the journals: for a step that must run before the journals are read (agent
// sync's pass of the known forgets over what a merge brought in).
func OpenState(ctx context.Context, home string) (*sql.DB, error) {
	if err := Locate(home); err != nil {
		return nil, err
	}
	return openStateDB(ctx, filepath.Join(home, StateFile), false)
}

// syncJournal appends what this device changed and has not yet written,
// then folds in what other devices wrote: records that arrived by git or a
// file-sync tool are seen by the next command. Without news it is a stat
// per journal.
func (w *Workspace) syncJournal(ctx context.Context) {
	res, err := journal.Sync(ctx, w.State, w.Home, time.Now)
	if err != nil {
		w.JournalErr = err
	}
	w.JournalRefused = res.Refused
}

// Close appends this process's changes to the records to the device's
// journal, then releases the database handle. A change it could not append
// stays in state.db's outbox for the next command.
func (w *Workspace) Close() error {
	if w.ReadOnly != nil {
		return w.State.Close()
	}
	ferr := journal.Flush(context.Background(), w.State, w.Home, time.Now)
	if err := w.State.Close(); err != nil {
		return err
	}
	return ferr
}

// InitResult says what Init created; existing files are never touched.
type InitResult struct {
	Home    string   `json:"home"`
	Created []string `json:"created"` // workspace-relative names, in creation order
}

// Init creates the workspace if needed: directory, logs/, SOUL.md and
// MEMORY.md from defaults, state.db with its schema. It is idempotent, never
// overwrites a file, and holds an exclusive lock so two concurrent inits
// cannot interleave. The returned workspace is open.
func Init(ctx context.Context, home string) (*Workspace, *InitResult, error) {
	res := &InitResult{Home: home, Created: []string{}}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", home, err)
	}
	unlock, err := lockExclusive(ctx, filepath.Join(home, lockFile))
	if err != nil {
		return nil, nil, fmt.Errorf("init %s: %w", home, err)
	}
	defer unlock()

	logs := filepath.Join(home, LogsDir)
	if _, err := os.Stat(logs); errors.Is(err, os.ErrNotExist) {
		if err := confined.Mkdir(home, LogsDir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("init %s: %w", logs, err)
		}
		res.Created = append(res.Created, LogsDir+"/")
	}
	for _, f := range []struct{ name, body string }{
		{SoulFile, defaultSoul},
		{MemoryFile, defaultMemory},
	} {
		created, err := confined.CreateNew(home, f.name, []byte(f.body))
		if err != nil {
			return nil, nil, fmt.Errorf("init: %w", err)
		}
		if created {
			res.Created = append(res.Created, f.name)
		}
	}
	stateFile := filepath.Join(home, StateFile)
	_, statErr := os.Stat(stateFile)
	db, err := openStateDB(ctx, stateFile, true)
	if err != nil {
		return nil, nil, err
	}
	if errors.Is(statErr, os.ErrNotExist) {
		res.Created = append(res.Created, StateFile)
	}
	ws := &Workspace{Home: home, State: db}
	ws.syncJournal(ctx)
	return ws, res, nil
}

// lockExclusive takes an advisory flock on path (gofrs/flock), polling
// until ctx is done or a generous deadline passes (a stuck init should not
// hang a script forever).
func lockExclusive(ctx context.Context, path string) (func(), error) {
	fl := flock.New(path)
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ok, err := fl.TryLockContext(wait, 20*time.Millisecond)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("lock %s: %w", path, err)
	case !ok:
		return nil, fmt.Errorf("another agent init is still running (lock %s held)", path)
	}
	return func() { fl.Unlock() }, nil
}
