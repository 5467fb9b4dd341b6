package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"agent/core"
	"agent/core/compact"
	"agent/core/importer"
	"agent/index/sqlitedb"
	"agent/memory/errkind"
)

// Exit codes, as documented in the README (DESIGN.md "CLI contract").
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitNotFound    = 3
	exitUnavailable = 4
	// exitInterrupted is the shell's code for a command ended by Ctrl-C
	// (128 + SIGINT).
	exitInterrupted = 130
)

// interruptedError is a command stopped by Ctrl-C (or SIGTERM, SIGHUP),
// with what became of the work: "nothing was imported; run it again to
// resume". It is said instead of Go's "context canceled".
type interruptedError struct{ what string }

func (e *interruptedError) Error() string {
	if e.what == "" {
		return "interrupted"
	}
	return "interrupted: " + e.what
}

func (e *interruptedError) Unwrap() error { return context.Canceled }

// interrupted is err said as an interruption with what became of the work
// when err is the command's context ending; else err as it is.
func interrupted(err error, what string) error {
	if err != nil && errors.Is(err, context.Canceled) {
		var ie *interruptedError
		if !errors.As(err, &ie) {
			return &interruptedError{what: what}
		}
	}
	return err
}

// usageError is a mistake in how the command was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// codedError carries an explicit exit code, for the few places where the
// error value itself does not say it (for example "no results").
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// silentExit ends the process with a code and prints nothing more: the command
// has already said what it had to (for example search with no hits).
func silentExit(code int) error { return &codedError{code: code, err: errSilent} }

var errSilent = errors.New("exit without message")

// exitCodes maps the packages' sentinel errors to exit codes. This table is
// the one place that decision is made.
var exitCodes = []struct {
	err  error
	code int
}{
	{context.Canceled, exitInterrupted},
	{core.ErrNoWorkspace, exitFailure},
	{core.ErrStateDB, exitFailure},
	{core.ErrCannotWrite, exitFailure}, // a full or read-only disk
	{core.ErrModelUnavailable, exitUnavailable},
	{core.ErrInvalidInput, exitUsage},
	{core.ErrContextTooSmall, exitUsage}, // a num_ctx too small for what is never cut
	{core.ErrNoSession, exitNotFound},
	{compact.ErrNothing, exitNotFound},
	{compact.ErrInvalid, exitFailure},
	{importer.ErrNotExport, exitUsage},
	// Every package's ErrInvalid and ErrNotFound (profile, soul, memory,
	// index, reminders, jobs, skills, revisions, importer, forget) is one
	// of these two kinds.
	{errkind.ErrInvalid, exitUsage},
	{errkind.ErrNotFound, exitNotFound},
}

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	for _, m := range exitCodes {
		if errors.Is(err, m.err) {
			return m.code
		}
	}
	return exitFailure
}

// reportError prints err to stderr in the one house style: "agent: " before
// every line, lower-case, no trailing period.
func reportError(w io.Writer, err error) {
	if errors.Is(err, errSilent) {
		return
	}
	msg := strings.TrimRight(err.Error(), ".\n")
	if errors.Is(err, context.Canceled) {
		// Go's "context canceled" means nothing to a person who pressed
		// Ctrl-C; a command that knows says what became of the work.
		var ie *interruptedError
		if !errors.As(err, &ie) {
			ie = &interruptedError{}
		}
		msg = ie.Error()
	}
	if p := core.DiskProblem(err); p != nil {
		// Said in the user's terms, whatever wrapped it: the disk, not a
		// damaged file, and what became of their data.
		msg = p.Error() + ": " + p.Outcome()
	}
	// Opening state.db checks only what costs the same at any size; damage
	// deeper in the file shows where it is read. (index.db is rebuilt, so a
	// corrupt error that gets here is state.db's.)
	if sqlitedb.IsCorrupt(err) && !errors.Is(err, core.ErrStateDB) {
		msg += " (state.db is damaged: agent doctor checks it whole; restore it from a backup)"
	}
	cols := errCols(w)
	for _, line := range strings.Split(msg, "\n") {
		io.WriteString(w, errLines(line, cols))
	}
}
