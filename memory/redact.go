package memory

import (
	"strings"

	"agent/memory/secrets"
)

// Redaction is one secret replaced by its marker in text read from a note:
// the line it started on (1-based) and its kind, never its value.
type Redaction struct {
	Line int
	Kind string
}

// RedactLines replaces the secrets in a note's text with their markers, for
// text read from a file the user wrote by hand (a source folder's note, a
// log edited in an editor) on its way to the index, the prompt or the
// embedder; the file itself stays as it is. Each marker is followed by as
// many line breaks as the value held (a key block), so line numbers counted
// in the result still point at the file's lines.
func RedactLines(text string) (string, []Redaction) {
	found := secrets.Find(text)
	if len(found) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	where := make([]Redaction, 0, len(found))
	last, line := 0, 1
	for _, f := range found {
		line += strings.Count(text[last:f.Start], "\n")
		where = append(where, Redaction{Line: line, Kind: f.Kind})
		b.WriteString(text[last:f.Start])
		b.WriteString(secrets.Marker(f.Kind))
		n := strings.Count(text[f.Start:f.End], "\n")
		b.WriteString(strings.Repeat("\n", n))
		line += n
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), where
}
