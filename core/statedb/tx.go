package statedb

import (
	"context"
	"database/sql"
)

// Tx is what a package's ApplyTx needs of the transaction a journal replay
// runs it in: *sql.Tx, or the replay's wrapper that prepares each
// statement once for all the entries it applies.
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
