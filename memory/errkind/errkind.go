// Package errkind is the one error type that carries a complete, user-facing
// message while still matching a sentinel with errors.Is: the message reads
// "unknown profile key ..." rather than "...: invalid", and the CLI still maps
// the sentinel to its exit code (cmd/agent/exit.go).
//
// It is a leaf below every other package (profile, soul and memory import it,
// and core imports them), so it imports only the standard library.
package errkind

import (
	"errors"
	"fmt"
)

// Error is a whole message of a given kind. Kind is what errors.Is and
// errors.As see through Unwrap; Error() is the message alone.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// Errorf formats a message of the given kind (as fmt.Sprintf does; the kind
// is the one error it matches).
func Errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// The two kinds the exit codes map from (cmd/agent/exit.go, one row each):
// every package's own ErrInvalid and ErrNotFound is one of them.
var (
	// ErrInvalid is bad input from the user: a usage error (exit 2).
	ErrInvalid = errors.New("invalid")
	// ErrNotFound is a named thing that does not exist (exit 3).
	ErrNotFound = errors.New("not found")
)

// kindOf is a package's own sentinel of a shared kind: it says what the
// kind says and errors.Is finds the kind through it, while it stays a value
// of its own (errors.Is(err, profile.ErrInvalid) does not match soul's).
type kindOf struct{ kind error }

func (k *kindOf) Error() string { return k.kind.Error() }
func (k *kindOf) Unwrap() error { return k.kind }

// Invalid returns a package's own sentinel of the kind ErrInvalid.
func Invalid() error { return &kindOf{ErrInvalid} }

// NotFound returns a package's own sentinel of the kind ErrNotFound.
func NotFound() error { return &kindOf{ErrNotFound} }
