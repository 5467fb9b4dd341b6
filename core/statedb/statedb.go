// Package statedb opens state.db, the workspace's precious database: it
// refuses a file that is not an agent database (or one from a newer agent)
// without writing a byte to it, then switches it to WAL and applies each
// package's pending migrations, in the order it is given.
package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver (cgo, sqlite_fts5 tag)

	"agent/index/sqlitedb"
	"agent/memory/confined"
)

// ErrUnusable marks a state.db that cannot be used: corrupt, foreign, or
// from a newer agent. The file is never modified when this is returned.
var ErrUnusable = errors.New("unusable state.db")

// Set is one package's schema for state.db: its name (the prefix of its
// migrations' names in schema_migrations) and its migrations/NNNN_*.sql.
type Set struct {
	Component string
	Files     fs.FS
	// Steps are migrations written in Go, for what SQL alone cannot do
	// (read the workspace's files): named NNNN_*.go, each runs once, in
	// the order of its name among the set's files, in a transaction that
	// records it as a file's is.
	Steps map[string]Step
}

// Step is a migration in Go: tx is its transaction, home the directory
// state.db is in.
type Step func(ctx context.Context, tx *sql.Tx, home string) error

// dsn is the one place connection settings are chosen: a busy timeout so
// concurrent agent processes wait for each other instead of failing with
// "database is locked", immediate write transactions so two writers never
// deadlock upgrading a read lock, mode=rw so opening never creates a file,
// and secure_delete so what is deleted (a forgotten phrase, a deleted
// session) is overwritten with zeros rather than left in free space for
// `strings state.db` to find (docs/decisions-forget.md, measured).
func dsn(file string, create bool) string {
	mode := "rw"
	if create {
		mode = "rwc"
	}
	return sqlitedb.File(file, "mode="+mode+"&_busy_timeout=10000&_txlock=immediate&_foreign_keys=on&_secure_delete=on")
}

// Open opens state.db, checks that it is an agent database this binary
// understands (every applied migration is one of sets'), then switches it to
// WAL and applies pending migrations, set by set in the order given. Nothing
// is written before the checks pass, so a foreign or corrupt file is left
// exactly as it was.
func Open(ctx context.Context, file string, create bool, sets []Set) (*sql.DB, error) {
	if err := confined.Inside(filepath.Dir(file), filepath.Base(file)); err != nil {
		return nil, fmt.Errorf("%w: %s: %v; it was left untouched", ErrUnusable, file, err)
	}
	if create {
		// SQLite would create the file with the umask's mode (0644): whole
		// conversations readable by every user. Created here first, empty,
		// it is private, and SQLite gives its WAL and shm files the same mode.
		if err := createPrivate(file); err != nil {
			return nil, fmt.Errorf("create %s: %w", file, err)
		}
	}
	db, err := sql.Open("sqlite3", dsn(file, create))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	if err := check(ctx, db, file, sets); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: set WAL: %w", file, err)
	}
	if err := migrate(ctx, db, file, sets); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenReadOnly opens state.db for reading only, writing nothing, not even
// its -wal or -shm: for the commands that only read (search, reminders,
// profile show…) on a disk that refuses writes. It runs Open's checks and
// refuses a file that still needs a migration (which would be a write).
// Where SQLite cannot read a WAL database without creating its shared
// memory file, it reads the file as immutable: nothing else can change
// it on a disk nobody can write.
func OpenReadOnly(ctx context.Context, file string, sets []Set) (*sql.DB, error) {
	if err := confined.Inside(filepath.Dir(file), filepath.Base(file)); err != nil {
		return nil, fmt.Errorf("%w: %s: %v; it was left untouched", ErrUnusable, file, err)
	}
	var last error
	for _, q := range []string{"mode=ro", "mode=ro&immutable=1"} {
		db, err := sql.Open("sqlite3", sqlitedb.File(file, q+"&_busy_timeout=10000&_foreign_keys=on"))
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", file, err)
		}
		if err := check(ctx, db, file, sets); err != nil {
			db.Close()
			last = err
			continue
		}
		if err := fullyMigrated(ctx, db, file, sets); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}
	return nil, last
}

// fullyMigrated refuses a state.db with a migration still to apply: reading
// it with this agent's queries needs the newer schema.
// unusable says why a file cannot be used, unless the command was stopped
// meanwhile: a query the context ended is no finding about the file (a
// Ctrl-C during a sync's replay was called an unusable state.db).
func unusable(ctx context.Context, format string, args ...any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%w: "+format, append([]any{ErrUnusable}, args...)...)
}

func fullyMigrated(ctx context.Context, db *sql.DB, file string, sets []Set) error {
	applied, err := appliedMigrations(ctx, db)
	if err != nil {
		return unusable(ctx, "%s: read schema_migrations: %v", file, err)
	}
	for _, set := range sets {
		names, err := migrationNames(set)
		if err != nil {
			return err
		}
		for _, n := range names {
			if !applied[n] {
				return fmt.Errorf("%s needs an update of its tables (%s), which cannot be written now", file, n)
			}
		}
	}
	return nil
}

// createPrivate creates an empty file with mode 0600 unless something is
// there already (whose mode is the user's business and left alone).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// check refuses a file that is not SQLite (its header and schema must
// read) or holds tables but no agent migration record (someone else's db),
// or one written by a newer agent. Its cost does not grow with the file: a
// full integrity check reads every page, 0.5 s for a few years of chat on
// every command, so it is agent doctor's (doctorSQLQuickCheck); damage in a
// page this check does not read surfaces as an error where it is read.
func check(ctx context.Context, db *sql.DB, file string, sets []Set) error {
	var tables []string
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return unusable(ctx, "%s is not a readable SQLite database (%v); it was left untouched", file, err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return unusable(ctx, "%s: %v", file, err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return unusable(ctx, "%s is not a readable SQLite database (%v); it was left untouched", file, err)
	}
	rows.Close()
	if len(tables) == 0 {
		return nil // new, empty database
	}
	hasRecord := false
	for _, t := range tables {
		if t == "schema_migrations" {
			hasRecord = true
		}
	}
	if !hasRecord {
		return unusable(ctx, "%s is not an agent database (tables: %s); it was left untouched", file, strings.Join(tables, ", "))
	}
	known := map[string]bool{}
	for _, set := range sets {
		names, err := migrationNames(set)
		if err != nil {
			return err
		}
		for _, n := range names {
			known[n] = true
		}
	}
	applied, err := appliedMigrations(ctx, db)
	if err != nil {
		return unusable(ctx, "%s: read schema_migrations: %v", file, err)
	}
	for name := range applied {
		if !known[name] {
			return unusable(ctx, "%s was written by a newer agent (unknown migration %s); upgrade agent to use it", file, name)
		}
	}
	return nil
}

func migrationNames(set Set) ([]string, error) {
	entries, err := fs.ReadDir(set.Files, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read %s migrations: %w", set.Component, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, set.Component+"/"+e.Name())
		}
	}
	for name := range set.Steps {
		names = append(names, set.Component+"/"+name)
	}
	sort.Strings(names)
	return names, nil
}

func appliedMigrations(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM schema_migrations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		applied[n] = true
	}
	return applied, rows.Err()
}

// migrate applies each pending migration in its own transaction, recording it
// in schema_migrations in the same transaction, so a crash never leaves a
// half-applied schema.
func migrate(ctx context.Context, db *sql.DB, file string, sets []Set) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate %s: %w", file, err)
	}
	applied, err := appliedMigrations(ctx, db)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", file, err)
	}
	for _, set := range sets {
		names, err := migrationNames(set)
		if err != nil {
			return err
		}
		for _, name := range names {
			if applied[name] {
				continue
			}
			step := set.Steps[path.Base(name)]
			if step == nil {
				body, err := fs.ReadFile(set.Files, path.Join("migrations", path.Base(name)))
				if err != nil {
					return fmt.Errorf("migrate %s: %w", file, err)
				}
				step = func(ctx context.Context, tx *sql.Tx, _ string) error {
					_, err := tx.ExecContext(ctx, string(body))
					return err
				}
			}
			if err := applyMigration(ctx, db, name, filepath.Dir(file), step); err != nil {
				return fmt.Errorf("migrate %s: %s: %w", file, name, err)
			}
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, name, home string, step Step) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process may have applied it while we waited for the write lock.
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE name = ?", name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := step(ctx, tx, home); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
		name, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return err
	}
	return tx.Commit()
}
