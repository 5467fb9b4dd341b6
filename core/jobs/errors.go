package jobs

import (
	"agent/memory/errkind"
)

// Sentinel errors; the CLI maps them to exit codes (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input: a bad name or schedule, a command that is
	// not one of the agent's own (exit 2).
	ErrInvalid = errkind.Invalid()
	// ErrNotFound marks an unknown job (exit 3).
	ErrNotFound = errkind.NotFound()
)

func invalidf(format string, args ...any) error {
	return errkind.Errorf(ErrInvalid, format, args...)
}

func notFoundf(format string, args ...any) error {
	return errkind.Errorf(ErrNotFound, format, args...)
}
