package skills

import (
	"errors"

	"agent/memory/errkind"
)

// Sentinel errors; the CLI maps them to exit codes in one place
// (cmd/agent/exit.go).
var (
	// ErrInvalid marks bad input: a name, description or body that breaks
	// the format's rules, or a path a skill may not read (exit 2).
	ErrInvalid = errkind.Invalid()
	// ErrNotFound marks a skill, revision or resource that does not exist
	// (exit 3).
	ErrNotFound = errkind.NotFound()
	// ErrExists marks a skill that is already there (agent skills new).
	ErrExists = errors.New("already exists")
)

func invalidf(format string, args ...any) error {
	return errkind.Errorf(ErrInvalid, format, args...)
}

func notFoundf(format string, args ...any) error {
	return errkind.Errorf(ErrNotFound, format, args...)
}
