//go:build !cgo

package sqlitedb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"syscall"
)

// Without cgo there is no SQLite: agent is always built with it. This file
// exists so that the code for other systems type-checks from any machine
// (make lint vets GOOS=darwin with CGO_ENABLED=0, as no cross C compiler is
// at hand); every database opened here fails with errNoCgo.
var errNoCgo = errors.New("agent was built without cgo: SQLite is not available")

// OpenWith stands for the cgo version; its connections always fail.
func OpenWith(dsn, pragmas string, funcs ...Func) *sql.DB { return sql.OpenDB(noDriver{}) }

type noDriver struct{}

func (noDriver) Connect(context.Context) (driver.Conn, error) { return nil, errNoCgo }
func (noDriver) Driver() driver.Driver                        { return noDriver{} }
func (noDriver) Open(string) (driver.Conn, error)             { return nil, errNoCgo }

// IsCorrupt is always false without SQLite.
func IsCorrupt(error) bool { return false }

// IsSQLError is always false without SQLite.
func IsSQLError(error) bool { return false }

// IsUnique is always false without SQLite.
func IsUnique(error) bool { return false }

// WriteErrno says why a write could not happen when the disk is the cause
// (driver.go); without SQLite only os errors carry it.
func WriteErrno(err error) syscall.Errno { return osWriteErrno(err) }
