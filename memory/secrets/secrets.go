// Package secrets finds credentials in text so that what is written to
// memory (MEMORY.md, the daily logs, state.db, and from them the index)
// holds a marker naming the kind instead: "[secret: github token]".
//
// Precision comes first: a false positive damages the user's notes for
// good, a miss leaves them as they were. So a value is replaced only when
// it has a provider's exact shape (prefix, length, alphabet, the checksum
// where the provider has one: providers.go), is a whole private key block
// (keyblock.go), or sits in a credential position — `DB_PASSWORD=`,
// `password: `, URL userinfo, `AccountKey=`, `curl -u`, netrc,
// `Authorization:` (positions.go) — and looks generated, which an
// expression (`tokenizer.eos_token`, `os.environ[…]`, `${VAR}`, a call)
// never does (generated.go). docs/decisions-secrets.md says why.
package secrets

import (
	"fmt"
	"slices"
	"strings"
)

// Finding is one secret: its kind and the bytes of s it covers (the value
// only, for a key=value form).
type Finding struct {
	Kind       string
	Start, End int
}

// Marker is what replaces a secret of kind.
func Marker(kind string) string { return markerOpen + kind + markerClose }

// markerOpen and markerClose frame every Marker; Find reads them to leave a
// marker alone, so that a second Redact changes nothing.
const markerOpen, markerClose = "[secret: ", "]"

// markerMost is the longest Marker: markerOpen and the longest kind,
// "stripe webhook secret" (TestEveryMarkerFitsMarkerMost).
const markerMost = 32

// Find returns the secrets in s, in order, none overlapping. Where two
// finds overlap the first one made wins: key blocks, then the providers'
// shapes, then the credential positions.
func Find(s string) []Finding {
	var t text
	t.init(s)
	return t.find()
}

func (t *text) find() []Finding {
	s := t.s
	var out []Finding
	add := func(f Finding) {
		if f.Start >= f.End || strings.HasPrefix(s[f.Start:], markerOpen) {
			return
		}
		if slices.ContainsFunc(out, func(o Finding) bool { return f.Start < o.End && o.Start < f.End }) {
			return
		}
		out = append(out, f)
	}
	if t.may("-----begin ") {
		findKeyBlocks(s, add)
	}
	findProviders(t, add)
	findPositions(t, add)
	slices.SortFunc(out, func(a, b Finding) int { return a.Start - b.Start })
	return out
}

// asciiLower lowercases A-Z only, so that an offset in it is the same
// offset in s (strings.ToLower changes the length of invalid UTF-8 and of
// some letters: "\xb7KEY" became 6 bytes, and indexing s with its offsets
// panicked).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte[c]
	}
	return string(b)
}

// lowerByte is c with A-Z lowercased, a table: the loops that lower every
// byte of a text run without a branch.
var lowerByte = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// Redact returns s with every secret replaced by its marker, and the kinds
// replaced, in order (nil when s had none; s itself is then returned).
func Redact(s string) (string, []string) {
	found := Find(s)
	if len(found) == 0 {
		return s, nil
	}
	var b strings.Builder
	kinds := make([]string, 0, len(found))
	last := 0
	for _, f := range found {
		b.WriteString(s[last:f.Start])
		b.WriteString(Marker(f.Kind))
		kinds = append(kinds, f.Kind)
		last = f.End
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// isWordByte is \b's idea of a word character. The patterns that start with
// a literal leave the boundary before it to Go code: a leading \b would cost
// Go's regexp its fast scan for the literal (~20× slower on 32 KB).
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// RedactEach replaces, in place, the secrets in each of texts, and returns
// the kinds replaced: for a write that stores several texts at once.
func RedactEach(texts ...*string) []string {
	var kinds []string
	for _, p := range texts {
		var k []string
		*p, k = Redact(*p)
		kinds = append(kinds, k...)
	}
	return kinds
}

// Describe names what was replaced, never the values: "a secret (jwt)",
// "3 secrets (github token, password)"; "" when kinds is empty.
func Describe(kinds []string) string {
	if len(kinds) == 0 {
		return ""
	}
	noun := "a secret"
	if len(kinds) > 1 {
		noun = fmt.Sprintf("%d secrets", len(kinds))
	}
	return noun + " (" + strings.Join(slices.Compact(slices.Sorted(slices.Values(kinds))), ", ") + ")"
}
