// Package profile keeps the agent's and the user's identity as guarded rows in
// state.db. Records change only on a user's explicit direction (a Directive);
// the model can at most propose a change, which the user accepts or rejects.
// Every change is recorded with its old and new value, time and command.
package profile

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on what a record may hold. They keep the profile layer of the prompt
// small and every value printable on one line.
const (
	// MaxValueRunes caps a value, counted in characters after trimming.
	MaxValueRunes = 200
	// MaxPrefNameLen caps the part of a preference key after "user.pref." or
	// "agent.pref.".
	MaxPrefNameLen = 48
)

// knownKeys are the fixed keys, in the order the summary renders them.
var knownKeys = []string{
	"agent.name", "agent.role", "agent.style",
	"user.name", "user.timezone", "user.language", "user.location",
}

// prefPrefixes start the free-form preference keys.
var prefPrefixes = []string{"agent.pref.", "user.pref."}

// Keys lists the valid keys: the fixed ones, then the preference patterns.
func Keys() []string {
	keys := append([]string(nil), knownKeys...)
	for _, p := range prefPrefixes {
		keys = append(keys, p+"*")
	}
	return keys
}

func isKnown(key string) bool {
	for _, k := range knownKeys {
		if k == key {
			return true
		}
	}
	return false
}

// scopeOf returns "agent" or "user"; the key must already be checked.
func scopeOf(key string) string {
	scope, _, _ := strings.Cut(key, ".")
	return scope
}

// checkKey accepts a known key or a well-formed preference key.
func checkKey(key string) error {
	if isKnown(key) {
		return nil
	}
	for _, p := range prefPrefixes {
		name, ok := strings.CutPrefix(key, p)
		if !ok {
			continue
		}
		if name == "" || len(name) > MaxPrefNameLen || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != "" {
			return invalidf("invalid preference key %q: the name after %q must be 1-%d characters of a-z 0-9 _ . -", key, p, MaxPrefNameLen)
		}
		return nil
	}
	return invalidf("unknown profile key %q; valid keys: %s", key, strings.Join(Keys(), ", "))
}

// Validate checks that key is valid and value acceptable for it, and returns
// the value normalised (trimmed). Every failure wraps ErrInvalid.
func Validate(key, value string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	v, err := checkLine(value, MaxValueRunes)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	if key == "user.timezone" {
		// "Local" would mean whatever machine the agent runs on, which is
		// exactly what the record exists to pin down.
		if _, err := time.LoadLocation(v); err != nil || v == "Local" {
			return "", invalidf("%s: %q is not an IANA time zone (for example Europe/Berlin, America/New_York, UTC)", key, v)
		}
	}
	return v, nil
}

// checkLine enforces the rules shared by every value: valid UTF-8, trimmed,
// non-empty, one line, no invisible control or formatting characters, at most
// max characters.
func checkLine(s string, max int) (string, error) {
	if !utf8.ValidString(s) {
		return "", invalidf("value is not valid UTF-8")
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", invalidf("value is empty (use unset to remove a key)")
	}
	if len(s) > utf8.UTFMax*max {
		// Surely over the limit: said without walking every character.
		return "", invalidf("value is %d bytes; the limit is %d characters", len(s), max)
	}
	for _, r := range s {
		if r == '\n' || r == '\r' || unicode.In(r, unicode.Zl, unicode.Zp) {
			return "", invalidf("value must be a single line")
		}
		if forbiddenRune(r) {
			return "", invalidf("value contains the invisible or control character %U", r)
		}
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", invalidf("value is %d characters; the limit is %d", n, max)
	}
	return s, nil
}

// forbiddenRune reports control characters and invisible formatting
// characters (bidi overrides, Unicode tags) that could hide text from the
// user in a value the model reads. Zero-width joiners stay allowed: emoji
// sequences need them.
func forbiddenRune(r rune) bool {
	if r == '\u200c' || r == '\u200d' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}
