package skills

import (
	"errors"
	"fmt"
)

// Sentinel errors; the CLI maps them to exit codes in one place
// (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input: a name, description or body that breaks
	// the format's rules, or a path a skill may not read (exit 2).
	ErrInvalid = errors.New("invalid")
	// ErrNotFound marks a skill, revision or resource that does not exist
	// (exit 3).
	ErrNotFound = errors.New("not found")
	// ErrExists marks a skill that is already there (agent skills new).
	ErrExists = errors.New("already exists")
)

// kindError carries a complete, user-facing message while still matching a
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
