package forget

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"agent/core/forgotten"
)

// ApplyPending forgets here what other devices forgot: each pending row
// (a journal brought its id, salt, hash, length and key id, never the
// phrase) is searched for in every place Find searches — state.db, the
// workspace's files and journals, the index — by hashing each stretch of
// text as long as the phrase under the key, and what matches is replaced
// as a forget replaces it. The row then stays as any forgotten row
// (imports skip the phrase) and is never journalled as this device's own.
// Without a pending row it is one query. ix may be nil (no index to purge).
func ApplyPending(ctx context.Context, home string, db *sql.DB, ix Index, now time.Time) ([]Result, error) {
	list, err := forgotten.Pending(ctx, db)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	keys, _, err := forgotten.Keys(ctx, db)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, r := range list {
		f := finderFor(r, keys)
		if f == nil {
			continue // its key came and went: Waiting says so
		}
		p := &Plan{find: f, remote: r.ID}
		if err := p.findAll(ctx, home, db, ix); err != nil {
			return out, err
		}
		if p.Empty() {
			if err := forgotten.NothingHere(ctx, db, r.ID); err != nil {
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
