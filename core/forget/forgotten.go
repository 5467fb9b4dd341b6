package forget

import (
	"context"
	"database/sql"
	"fmt"
)

// Forgotten is the list of phrases forgotten so far, as their hashes: what
// a later import checks each message against (Holds), so an export that
// still holds a forgotten phrase does not bring it back.
type Forgotten struct {
	entries []forgottenEntry
}

type forgottenEntry struct {
	hash  string
	salt  []byte
	runes int
}

// LoadForgotten reads the forgotten phrases' hashes from state.db.
func LoadForgotten(ctx context.Context, db *sql.DB) (*Forgotten, error) {
	rows, err := db.QueryContext(ctx, `SELECT hash, salt, runes FROM forgotten WHERE kind = 'phrase'`)
	if err != nil {
		return nil, fmt.Errorf("read the forgotten phrases: %w", err)
	}
	defer rows.Close()
	f := &Forgotten{}
	for rows.Next() {
		var e forgottenEntry
		if err := rows.Scan(&e.hash, &e.salt, &e.runes); err != nil {
			return nil, err
		}
		if e.runes > 0 {
			f.entries = append(f.entries, e)
		}
	}
	return f, rows.Err()
}

// Holds reports whether text holds a forgotten phrase (in any case): each
// stretch of text as long as a phrase is hashed as the phrase was. It costs
// one hash per character per phrase, fine for an import's messages.
func (f *Forgotten) Holds(text string) bool {
	if f == nil || len(f.entries) == 0 {
		return false
	}
	runes := []rune(foldString(text))
	for _, e := range f.entries {
		for i := 0; i+e.runes <= len(runes); i++ {
			if phraseHash(e.salt, string(runes[i:i+e.runes])) == e.hash {
				return true
			}
		}
	}
	return false
}

// Scrub returns text with every forgotten phrase in it replaced by Marker,
// as a forget rewrites a file, and how many it replaced: for text shown to
// someone else (agent mcp serve's results), where a phrase the user forgot
// may still sit in a file edited by hand since. One hash per character per
// phrase, like Holds.
func (f *Forgotten) Scrub(text string) (string, int) {
	if f == nil || len(f.entries) == 0 {
		return text, 0
	}
	total := 0
	for _, e := range f.entries {
		var n int
		text, n = replaceFound(text, hashFinder(e.salt, e.hash, e.runes))
		total += n
	}
	return text, total
}
