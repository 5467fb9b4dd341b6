package main

import (
	"fmt"
	"slices"
	"strings"

	"agent/memory/secrets"
)

// redact replaces, in place, the secrets in the texts a command is about to
// store (a reminder, a profile value, a job's command line: all in state.db,
// and a job's or a reminder's words are repeated in every prompt), and tells
// the user the kinds replaced, never the values: secrets never land in
// memory, whichever command writes it.
func (a *app) redact(what string, texts ...*string) {
	var kinds []string
	for _, p := range texts {
		var k []string
		*p, k = secrets.Redact(*p)
		kinds = append(kinds, k...)
	}
	if len(kinds) == 0 {
		return
	}
	noun := "a secret"
	if len(kinds) > 1 {
		noun = fmt.Sprintf("%d secrets", len(kinds))
	}
	a.warnf("%s (%s) in the %s was not stored: a marker stands in its place", noun, strings.Join(slices.Compact(slices.Sorted(slices.Values(kinds))), ", "), what)
}
