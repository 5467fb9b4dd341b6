package core

import (
	"fmt"

	"agent/memory/secrets"
)

// Secrets never land in memory: the memory package replaces them in what it
// writes (MEMORY.md, the logs), Sessions in what it stores, and the tools in
// the SOUL.md, skills and reminders the model writes. The user is told the
// kinds that were replaced, never the values; the model is told too, so it
// does not repeat the attempt.

// secretsNote tells the user which kinds of secret a tool's write had
// replaced ("" when none), and returns the words for the tool's result.
func (c *Chat) secretsNote(tool string, kinds []string) string {
	if len(kinds) == 0 {
		return ""
	}
	what := secrets.Describe(kinds)
	c.notify(fmt.Sprintf("%s in the model's %s was not stored: a marker stands in its place", what, tool))
	return fmt.Sprintf("; %s replaced by a marker: secrets are never stored in memory", what)
}
