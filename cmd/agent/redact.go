package main

import "agent/memory/secrets"

// redact replaces, in place, the secrets in the texts a command is about to
// store (a reminder, a profile value, a job's command line: all in state.db,
// and a job's or a reminder's words are repeated in every prompt), and tells
// the user the kinds replaced, never the values: secrets never land in
// memory, whichever command writes it.
func (a *app) redact(what string, texts ...*string) {
	if d := secrets.Describe(secrets.RedactEach(texts...)); d != "" {
		a.warnf("%s in the %s was not stored: a marker stands in its place", d, what)
	}
}
