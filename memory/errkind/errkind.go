// Package errkind is the one error type that carries a complete, user-facing
// message while still matching a sentinel with errors.Is: the message reads
// "unknown profile key ..." rather than "...: invalid", and the CLI still maps
// the sentinel to its exit code (cmd/agent/exit.go).
//
// It is a leaf below every other package (profile, soul and memory import it,
// and core imports them), so it imports only the standard library.
package errkind

import "fmt"

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
