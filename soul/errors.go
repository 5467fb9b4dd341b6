package soul

import (
	"agent/memory/errkind"
)

// Sentinel errors; wrap them with %w and context. The CLI maps them to exit
// codes in one place (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input from the user: a usage error (exit 2).
	ErrInvalid = errkind.Invalid()
	// ErrNotFound marks a named thing that does not exist (exit 3).
	ErrNotFound = errkind.NotFound()
)

func invalidf(format string, args ...any) error {
	return errkind.Errorf(ErrInvalid, format, args...)
}

func notFoundf(format string, args ...any) error {
	return errkind.Errorf(ErrNotFound, format, args...)
}
