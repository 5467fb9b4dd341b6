package profile

import (
	"errors"
	"fmt"
)

// Sentinel errors; wrap them with %w and context. The CLI maps them to exit
// codes in one place (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input from the user: a usage error (exit 2).
	ErrInvalid = errors.New("invalid")
	// ErrNotFound marks a named thing that does not exist (exit 3).
	ErrNotFound = errors.New("not found")
	// ErrNoDirective marks a write attempted without a user's direction: a
	// programming error in the caller, never something a user typed.
	ErrNoDirective = errors.New("profile write refused: no user directive")
)

// kindError carries a complete, user-facing message while still matching a
// sentinel with errors.Is, so messages read "unknown profile key ..." rather
// than "...: invalid".
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func invalidf(format string, args ...any) error {
	return &kindError{kind: ErrInvalid, msg: fmt.Sprintf(format, args...)}
}

func notFoundf(format string, args ...any) error {
	return &kindError{kind: ErrNotFound, msg: fmt.Sprintf(format, args...)}
}
