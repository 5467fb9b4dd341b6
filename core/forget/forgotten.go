package forget

import (
	"context"
	"database/sql"

	"agent/core/forgotten"
)

// Forgotten is the list of phrases forgotten so far, as their hashes: what
// a later import checks each message against (Holds), so an export that
// still holds a forgotten phrase does not bring it back.
type Forgotten struct {
	finders []finder
}

// LoadForgotten reads the forgotten phrases' hashes from state.db (those
// another device forgot too: an import skips them at once).
func LoadForgotten(ctx context.Context, db *sql.DB) (*Forgotten, error) {
	list, err := forgotten.All(ctx, db)
	if err != nil {
		return nil, err
	}
	fs, err := findersOf(ctx, db, list)
	if err != nil {
		return nil, err
	}
	return &Forgotten{finders: fs}, nil
}

// Holds reports whether text holds a forgotten phrase (in any case): each
// stretch of text as long as a phrase is hashed as the phrase was. It costs
// one hash per character per phrase, fine for an import's messages.
func (f *Forgotten) Holds(text string) bool {
	if f == nil {
		return false
	}
	for _, find := range f.finders {
		if len(find(text)) > 0 {
			return true
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
	if f == nil {
		return text, 0
	}
	total := 0
	for _, find := range f.finders {
		var n int
		text, n = replaceFound(text, find)
		total += n
	}
	return text, total
}
