package index

import (
	"agent/memory/errkind"
	"fmt"
)

// Sentinel errors; wrap them with %w and context. The CLI maps them to exit
// codes in one place (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input from the user: a usage error (exit 2).
	ErrInvalid = errkind.Invalid()
	// ErrNotFound marks a named thing that does not exist (exit 3).
	ErrNotFound = errkind.NotFound()
	// ErrNoTerms is a query with no word in it ("!!!"): a usage error for
	// a search, and simply nothing to recall for a chat message.
	ErrNoTerms = fmt.Errorf("%w query", ErrInvalid)
)
