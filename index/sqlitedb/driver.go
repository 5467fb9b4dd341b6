//go:build cgo

package sqlitedb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// OpenWith opens dsn with a connection pool whose every connection first
// runs pragmas (settings SQLite keeps per connection) and gets funcs as SQL
// functions, without registering a driver name globally.
func OpenWith(dsn, pragmas string, funcs ...Func) *sql.DB {
	drv := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		for _, f := range funcs {
			if err := c.RegisterFunc(f.Name, f.Fn, true); err != nil {
				return err
			}
		}
		_, err := c.Exec(pragmas, nil)
		return err
	}}
	return sql.OpenDB(connector{dsn: dsn, drv: drv})
}

type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.drv }

// IsCorrupt reports whether SQLite found the file damaged or not a
// database at all.
func IsCorrupt(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// IsSQLError reports SQLite's generic SQLITE_ERROR: for a statement built
// from user input (an FTS5 query), a syntax error in that input.
func IsSQLError(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrError
}

// IsUnique reports a UNIQUE constraint violation.
func IsUnique(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}

// WriteErrno says why a write could not happen when the disk is the cause:
// ENOSPC (full), EROFS (read-only) or EACCES/EPERM (not writable), from an
// os error or from SQLite (its errno, or SQLITE_FULL and SQLITE_READONLY
// when it gave none). Zero means the cause is something else.
func WriteErrno(err error) syscall.Errno {
	var se sqlite3.Error
	if errors.As(err, &se) {
		if e := diskErrno(se.SystemErrno); e != 0 {
			return e
		}
		switch se.Code {
		case sqlite3.ErrFull:
			return syscall.ENOSPC
		case sqlite3.ErrReadonly:
			return syscall.EROFS
		}
	}
	return osWriteErrno(err)
}
