package distill

import (
	"context"
	"database/sql"
	"time"

	"agent/core/memrev"
)

// WithStage returns o with f run (a kill -9) at each point between writes.
func WithStage(o Options, f func(string)) Options {
	o.stage = f
	return o
}

// AcceptAt is Accept with f run at each point between writes.
func AcceptAt(ctx context.Context, db *sql.DB, revs *memrev.Store, home string, p Proposal, today time.Time, f func(string)) error {
	return accept(ctx, db, revs, home, p, today, f)
}
