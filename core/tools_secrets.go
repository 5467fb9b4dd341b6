package core

import (
	"fmt"
	"slices"
	"strings"

	"agent/memory/secrets"
)

// Secrets never land in memory: the memory package replaces them in what it
// writes (MEMORY.md, the logs), Sessions in what it stores, and the tools in
// the SOUL.md, skills and reminders the model writes. The user is told the
// kinds that were replaced, never the values; the model is told too, so it
// does not repeat the attempt.

// redactArgs replaces the secrets in the texts a tool is about to store, in
// place, and returns the kinds replaced.
func redactArgs(texts ...*string) []string {
	var kinds []string
	for _, p := range texts {
		var k []string
		*p, k = secrets.Redact(*p)
		kinds = append(kinds, k...)
	}
	return kinds
}

// secretsNote tells the user which kinds of secret a tool's write had
// replaced ("" when none), and returns the words for the tool's result.
func (c *Chat) secretsNote(tool string, kinds []string) string {
	if len(kinds) == 0 {
		return ""
	}
	noun := "a secret"
	if len(kinds) > 1 {
		noun = fmt.Sprintf("%d secrets", len(kinds))
	}
	what := strings.Join(slices.Compact(slices.Sorted(slices.Values(kinds))), ", ")
	c.notify(fmt.Sprintf("%s (%s) in the model's %s was not stored: a marker stands in its place", noun, what, tool))
	return fmt.Sprintf("; %s (%s) replaced by a marker: secrets are never stored in memory", noun, what)
}
