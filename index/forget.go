package index

import (
	"context"
	"fmt"
)

// What agent forget (core/forget) needs of the index: which chunks hold a
// phrase, and a rebuild that keeps none of them.

// Matching counts the chunks whose text match accepts and returns the
// hashes of their embedded units (the keys of their vectors).
func (ix *Index) Matching(ctx context.Context, match func(string) bool) (chunks int, units [][]byte, err error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer release()
	if ix.db == nil || ix.full.needed() {
		return 0, nil, nil // no usable index: the rebuild finds nothing to keep
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT text FROM chunks`)
	if err != nil {
		return 0, nil, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return 0, nil, err
		}
		if !match(text) {
			continue
		}
		chunks++
		for _, u := range ix.dense.split(text) {
			units = append(units, unitHash(u))
		}
	}
	return chunks, units, rows.Err()
}

// Purge deletes the vectors of units and rebuilds index.db from the files
// into a new file (Reindex Full): the old file, its free pages and FTS5
// segments with it, is replaced whole, and only vectors still wanted are
// carried over.
func (ix *Index) Purge(ctx context.Context, units [][]byte) error {
	if err := ix.dropVectors(ctx, units); err != nil {
		return err
	}
	_, err := ix.Reindex(ctx, ReindexOptions{Full: true})
	return err
}

func (ix *Index) dropVectors(ctx context.Context, units [][]byte) error {
	release, err := ix.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	if ix.db == nil || len(units) == 0 || !ix.hasVectors(ctx) {
		return nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	for _, u := range units {
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE hash = ?1`, u); err != nil {
			return fmt.Errorf("index: drop vectors: %w", err)
		}
	}
	return tx.Commit()
}
