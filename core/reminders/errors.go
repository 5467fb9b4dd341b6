package reminders

import (
	"agent/memory/errkind"
)

// Sentinel errors; the CLI maps them to exit codes (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input: an unreadable, ambiguous or past time, an
	// empty text (exit 2).
	ErrInvalid = errkind.Invalid()
	// ErrNotFound marks an unknown or no longer pending reminder (exit 3).
	ErrNotFound = errkind.NotFound()
)

func invalidf(format string, args ...any) error {
	return errkind.Errorf(ErrInvalid, format, args...)
}

func notFoundf(format string, args ...any) error {
	return errkind.Errorf(ErrNotFound, format, args...)
}
