// Package index keeps index.db: a disposable SQLite FTS5 index over the
// chunks of MEMORY.md and the daily logs. It can be deleted at any time; the
// next reindex, refresh or search rebuilds it from the files.
package index

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"agent/index/sqlitedb"
	"agent/memory/confined"
)

// FileName is the index's file inside the workspace.
const FileName = "index.db"

// VouchSocket is where a running `agent memory watch` answers whether the
// index is fresh (vouch.go; Linux only, the name is the workspace's).
const VouchSocket = ".watch.sock"

// schemaVersion is stored in PRAGMA user_version. Bump it with any change to
// schema.sql, the tokenizer, or what a chunk holds: an index.db of another
// version is rebuilt, never migrated (it is derived data).
//
// 2: a note's secrets are stored as their markers; FTS5 secure-delete
// (sqlFinishBuild) leaves no deleted term in its pages; CJK, Hangul and
// Thai runs are indexed a character a token (segment.go).
// 3: chunks.by tells the assistant's words (a logged turn's reply) from the
// user's; a turn's two halves are chunks of their own; a note's front
// matter is a chunk, and its chunks without a heading carry its title;
// chunks_vocab (typos) and chunks(date) (time words).
const schemaVersion = 3

// applicationID marks index.db as ours ("agIX"), so a foreign SQLite file
// dropped at that name is rebuilt instead of being written into.
const applicationID = 0x61674958

//go:embed schema.sql
var schemaSQL string

// Index is an open index.db. It is safe for one goroutine at a time; several
// processes may use the same index.db at once.
type Index struct {
	home string
	path string
	warn func(string)
	db   *sql.DB
	ino  uint64 // inode db was opened on; a full rebuild elsewhere replaces the file
	// full says whether the next refresh must rebuild from scratch, and why.
	full fullRebuild
	// monitor, when set, answers whether a fresh search needs its walk.
	monitor ChangeMonitor
	// asked is set during Reindex: the caller wants the index built.
	asked bool
	lock  swapLock
	// readHook, set only by tests, runs before each file is read; an error
	// stands for the read failing (tests run as root, whom no permission
	// stops).
	readHook func(rel string) error
	// walkHook, set only by tests, runs before each full walk a refresh or
	// a fresh search falls back to when the quick check cannot tell.
	walkHook func()
	// vouch is what the last walk found about vouching (Vouchable).
	vouch vouchState
	// embedder, when set, adds embeddings to searches (dense.go);
	// denseOff is the notice already given about searching without them.
	embedder Embedder
	denseOff string
	// dense is how embeddings join a search (dense.go).
	dense denseTuning
	// askTimeout bounds the wait for a watcher's word (vouch.go).
	askTimeout time.Duration
	// refreshRefused: the user was told that the disk refused a refresh.
	refreshRefused bool
}

// askTimeout bounds the wait for a watcher's answer. A watcher applying a
// large change answers late; past this the asker walks and updates the index
// itself, which is never wrong, and a stopped (SIGSTOP) watcher cannot hang it.
// It is every Index's askTimeout; a test gives its own Index another.
const askTimeout = 2 * time.Second

// fullRebuild is the decision that index.db cannot be used as it is and the
// next refresh builds it anew, kept apart from what the user is told.
type fullRebuild struct {
	why string // the user's sentence: "index.db is corrupt (…)"; "": none needed
}

func rebuildBecause(why string) fullRebuild { return fullRebuild{why: why} }

func (f fullRebuild) needed() bool { return f.why != "" }

// Open opens the workspace's index.db. A missing, corrupt, foreign or
// other-version file is not an error: the next Refresh, Reindex or Search
// rebuilds it, telling warn why. warn also hears about every file that
// cannot be indexed. It may be nil.
func Open(ctx context.Context, home string, warn func(string)) (*Index, error) {
	if warn == nil {
		warn = func(string) {}
	}
	ix := &Index{home: home, path: filepath.Join(home, FileName), warn: warn, lock: swapLock{home: home}, dense: defaultDense(), askTimeout: askTimeout}
	// Even the first look at index.db is under the swap lock: a file
	// replaced between the stat and the first query would otherwise be read
	// as the orphan, with the new file's journal taken for its own.
	if err := ix.lock.hold(); err != nil {
		return nil, err
	}
	err := ix.open(ctx)
	ix.lock.release()
	if err != nil {
		ix.lock.close()
		return nil, err
	}
	return ix, nil
}

// open (re)opens index.db and decides whether it must be rebuilt.
func (ix *Index) open(ctx context.Context) error {
	if ix.db != nil {
		ix.db.Close()
		ix.db = nil
	}
	ix.full = fullRebuild{}
	// One leading outside is not written through: the rebuild renames a new
	// file over the link itself.
	if err := confined.Inside(ix.home, FileName); err != nil {
		ix.full = rebuildBecause(fmt.Sprintf("%s is not usable (%v)", FileName, err))
		return nil
	}
	st, err := os.Stat(ix.path)
	if errors.Is(err, os.ErrNotExist) {
		ix.full = rebuildBecause(FileName + " missing")
		return nil
	}
	if err != nil {
		return fmt.Errorf("open index %s: %w", ix.path, err)
	}
	ix.ino = inode(st)
	ix.db = openDB(dsn(ix.path, "rw"), readPragmas)
	var version, appID int
	err = ix.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	if err == nil {
		err = ix.db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID)
	}
	switch {
	case err != nil && isCorrupt(err):
		ix.full = rebuildBecause(fmt.Sprintf("%s is corrupt (%v)", FileName, err))
	case err != nil:
		return fmt.Errorf("open index %s: %w", ix.path, err)
	case appID != applicationID:
		ix.full = rebuildBecause(FileName + " is not an agent index")
	case version != schemaVersion:
		ix.full = rebuildBecause(fmt.Sprintf("%s has schema version %d, this agent uses %d", FileName, version, schemaVersion))
	}
	return nil
}

// Close releases the database handle.
func (ix *Index) Close() error {
	ix.lock.close()
	if ix.db == nil {
		return nil
	}
	err := ix.db.Close()
	ix.db = nil
	return err
}

// enter starts an operation: it takes the swap lock shared and makes sure
// ix.db is the file now at index.db. The returned release ends it.
func (ix *Index) enter(ctx context.Context) (release func(), err error) {
	if err := ix.lock.hold(); err != nil {
		return nil, err
	}
	if err := ix.current(ctx); err != nil {
		ix.lock.release()
		return nil, err
	}
	return ix.lock.release, nil
}

// current makes sure ix.db is the file now at index.db: another process's
// full rebuild replaces the file, and a long-lived Index (watch, chat) must
// not keep reading or writing the orphaned one. It costs one stat; under
// the swap lock (enter) its answer holds until the operation ends.
func (ix *Index) current(ctx context.Context) error {
	st, err := os.Stat(ix.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if !ix.full.needed() {
			if ix.db != nil {
				ix.db.Close()
				ix.db = nil
			}
			ix.full = rebuildBecause(FileName + " missing")
		}
		return nil
	case err != nil:
		return fmt.Errorf("index %s: %w", ix.path, err)
	case ix.db != nil && inode(st) == ix.ino:
		return nil
	}
	return ix.open(ctx)
}

// markCorrupt records that SQLite found the file damaged mid-operation.
func (ix *Index) markCorrupt(err error) {
	ix.full = rebuildBecause(fmt.Sprintf("%s is corrupt (%v)", FileName, err))
}

func isCorrupt(err error) bool { return sqlitedb.IsCorrupt(err) }

func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

// Connection settings. index.db keeps SQLite's rollback journal rather than
// WAL: a full rebuild replaces the file by rename, and a WAL or shm file left
// by the old file would be replayed into the new one. Readers and writers
// wait for each other through the busy timeout; index writes are short.
const (
	// readPragmas: memory-mapped reads spare a read() syscall per page.
	// secure_delete: what an update deletes (an edited-out secret) is
	// overwritten with zeros, not left in free pages and cells for
	// `strings index.db` to find (docs/decisions-forget.md, measured).
	readPragmas = "PRAGMA mmap_size = 268435456; PRAGMA temp_store = MEMORY; PRAGMA secure_delete = ON;"
	// buildPragmas: a full rebuild writes a new private file that is renamed
	// into place only when complete, so it needs neither journal nor fsync
	// per commit; a bigger FTS5 hash flushes fewer, larger segments.
	buildPragmas = "PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;" +
		" PRAGMA cache_size = -4096; PRAGMA temp_store = MEMORY;"
)

// dsn builds a go-sqlite3 URI; the path is escaped because SQLite decodes
// URI filenames. Busy timeout: concurrent agents wait for each other.
// _txlock=immediate: writers take the write lock up front, never upgrading.
func dsn(path, mode string) string {
	return sqlitedb.File(path, "mode="+mode+"&_busy_timeout=10000&_txlock=immediate")
}

// openDB opens one connection (the index is used by one goroutine) that runs
// pragmas each time it connects.
func openDB(dsn, pragmas string) *sql.DB {
	db := sqlitedb.OpenWith(dsn, pragmas, sqlitedb.Func{Name: ftsFormFunc, Fn: tokenForm})
	db.SetMaxOpenConns(1)
	return db
}
