package forget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// HasPending reports whether another device's forget waits to be applied
// here: one query.
func HasPending(ctx context.Context, db *sql.DB) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM forgotten WHERE pending = 1 LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("forget: %w", err)
	}
	return true, nil
}

// ApplyPending forgets here what other devices forgot: each pending row
// (a journal brought its id, salt, hash and length, never the phrase) is
// searched for in every place Find searches — state.db, the workspace's
// files and journals, the index — by hashing each stretch of text as long
// as the phrase, and what matches is replaced as a forget replaces it.
// The row then stays as any forgotten row (imports skip the phrase) and is
// never journalled as this device's own. Without a pending row it is one
// query. ix may be nil (no index to purge).
func ApplyPending(ctx context.Context, home string, db *sql.DB, ix Index, now time.Time) ([]Result, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, hash, salt, runes FROM forgotten WHERE pending = 1 AND kind = 'phrase' ORDER BY at, id`)
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	type pending struct {
		id, hash string
		salt     []byte
		runes    int
	}
	var list []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.id, &p.hash, &p.salt, &p.runes); err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []Result
	for _, r := range list {
		p := &Plan{find: hashFinder(r.salt, r.hash, r.runes), remote: r.id}
		if err := p.findAll(ctx, home, db, ix); err != nil {
			return out, err
		}
		if p.Empty() {
			if _, err := db.ExecContext(ctx, `UPDATE forgotten SET pending = 0 WHERE id = ?1`, r.id); err != nil {
				return out, fmt.Errorf("forget: %w", err)
			}
			continue
		}
		res, err := p.Apply(ctx, home, db, ix, now)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}
