package profile

import (
	"errors"

	"agent/memory/errkind"
)

// Sentinel errors; wrap them with %w and context. The CLI maps them to exit
// codes in one place (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input from the user: a usage error (exit 2).
	ErrInvalid = errkind.Invalid()
	// ErrNotFound marks a named thing that does not exist (exit 3).
	ErrNotFound = errkind.NotFound()
	// ErrNoDirective marks a write attempted without a user's direction: a
	// programming error in the caller, never something a user typed.
	ErrNoDirective = errors.New("profile write refused: no user directive")
)

func invalidf(format string, args ...any) error {
	return errkind.Errorf(ErrInvalid, format, args...)
}

func notFoundf(format string, args ...any) error {
	return errkind.Errorf(ErrNotFound, format, args...)
}
