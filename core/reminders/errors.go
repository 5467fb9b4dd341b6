package reminders

import (
	"errors"
	"fmt"
)

// Sentinel errors; the CLI maps them to exit codes (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input: an unreadable, ambiguous or past time, an
	// empty text (exit 2).
	ErrInvalid = errors.New("invalid")
	// ErrNotFound marks an unknown or no longer pending reminder (exit 3).
	ErrNotFound = errors.New("not found")
)

// kindError carries a whole user-facing message and still matches its
// sentinel with errors.Is.
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
