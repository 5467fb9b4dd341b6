package profile

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzValidate checks the contract of Validate on arbitrary input: it never
// panics, every failure is ErrInvalid, and every accepted value is a trimmed,
// single, printable line within the cap that validates to itself again.
func FuzzValidate(f *testing.F) {
	f.Add("agent.name", "Atlas")
	f.Add("user.timezone", "Europe/Berlin")
	f.Add("user.pref.coffee", "black\nno sugar")
	f.Fuzz(func(t *testing.T, key, value string) {
		got, err := Validate(key, value)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate(%q, %q) error %v does not wrap ErrInvalid", key, value, err)
			}
			return
		}
		if !utf8.ValidString(got) {
			t.Fatalf("accepted invalid UTF-8 %q", got)
		}
		if n := utf8.RuneCountInString(got); n == 0 || n > MaxValueRunes {
			t.Fatalf("accepted value of %d characters: %q", n, got)
		}
		if got != strings.TrimSpace(got) {
			t.Fatalf("accepted untrimmed value %q", got)
		}
		for _, r := range got {
			if r == '\n' || r == '\r' || unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
				t.Fatalf("accepted value %q with control or line-break character %U", got, r)
			}
		}
		again, err := Validate(key, got)
		if err != nil || again != got {
			t.Fatalf("normalised value %q does not validate to itself: %q, %v", got, again, err)
		}
	})
}
