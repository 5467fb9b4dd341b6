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

// A package's own sentinel is its shared kind to errors.Is, and stays
// apart from another package's of the same kind.
func TestPackageSentinelsShareTheirKind(t *testing.T) {
	a, b := errkind.Invalid(), errkind.Invalid()
	err := fmt.Errorf("set: %w", errkind.Errorf(a, "unknown key %q", "colour"))
	if !errors.Is(err, errkind.ErrInvalid) || !errors.Is(err, a) {
		t.Errorf("%v is not its kind or its sentinel", err)
	}
	if errors.Is(err, b) || errors.Is(err, errkind.ErrNotFound) {
		t.Errorf("%v matches another package's sentinel or another kind", err)
	}
	if a.Error() != "invalid" || errkind.NotFound().Error() != "not found" {
		t.Errorf("sentinels say %q, %q", a, errkind.NotFound())
	}
}
