package memory

// What the chat-history importer (core/importer) borrows from the log
// writer: the same lock and the same containment of a body's headings.

// ImportsDir holds the chat histories imported from other assistants
// (core/importer), one markdown file per conversation, relative to the
// workspace: the one name the importer, the index and doctor share.
const ImportsDir = "imports"

// Lock takes the workspace's exclusive memory lock (the one every append to
// MEMORY.md and the logs holds); call the returned func to release it.
func Lock(home string) (func(), error) { return lock(home) }

// ContainBody turns text into lines that stay inside the section they are
// written under: heading-like lines are escaped, and a body that would run
// past its end (an unclosed fence) is indented as code.
func ContainBody(text string) []string {
	lines := entryLines(text)
	if lines == nil {
		return nil
	}
	return containLogBody(lines)
}
