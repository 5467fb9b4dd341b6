// Package memory owns the canonical markdown files: appending to MEMORY.md and
// the daily logs safely, cutting them into heading-aware chunks, and watching
// them for changes. It knows nothing about SQLite.
package memory

// Chunk is one searchable piece of a memory file with its exact source.
type Chunk struct {
	Path      string // workspace-relative, slash-separated: "logs/2026-11-20.md"
	StartLine int    // 1-based, inclusive
	EndLine   int    // 1-based, inclusive
	Heading   string // heading path, outermost first, joined by " › "
	Date      string // "2026-11-20" from a log's file name; "" for other files
	Text      string // the chunk's markdown source lines, as in the file
	// By is ByAssistant when the chunk is the assistant's words (a logged
	// chat turn's reply), "" when it is the user's.
	By string
}
