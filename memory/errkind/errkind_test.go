package errkind_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"agent/memory/errkind"
)

var errInvalid = errors.New("invalid")

// The message is the whole message (no ": invalid" tail), and the kind is
// still found through wrapping, by errors.Is and errors.As.
func TestErrorIsItsKindAndSaysOnlyItsMessage(t *testing.T) {
	err := errkind.Errorf(errInvalid, "unknown profile key %q", "colour")
	if got, want := err.Error(), `unknown profile key "colour"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("profile set: %w", err)
	if !errors.Is(wrapped, errInvalid) {
		t.Errorf("errors.Is(%v, errInvalid) = false", wrapped)
	}
	if errors.Is(wrapped, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = true; the kind is the only match", wrapped)
	}
	var e *errkind.Error
	if !errors.As(wrapped, &e) || e.Kind != errInvalid {
		t.Errorf("errors.As(%v) = %v, want an *errkind.Error of kind invalid", wrapped, e)
	}
}

// A standard kind such as fs.ErrNotExist works as well (soul's missing file).
func TestErrorOfAStandardKind(t *testing.T) {
	err := errkind.Errorf(fs.ErrNotExist, "no SOUL.md at %s", "/w/SOUL.md")
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "no SOUL.md at /w/SOUL.md" {
		t.Errorf("got %q (is ErrNotExist: %v)", err, errors.Is(err, fs.ErrNotExist))
	}
}
