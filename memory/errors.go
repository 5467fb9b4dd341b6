package memory

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
)

// kindError is a complete, user-facing message that still matches a
// sentinel with errors.Is, so it does not end in ": invalid".
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func invalidf(format string, args ...any) error {
	return &kindError{kind: ErrInvalid, msg: fmt.Sprintf(format, args...)}
}
