package forget

import "strings"

// Span is one occurrence of the phrase in a Place's Text: Text[Start:End],
// byte offsets into its UTF-8.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// excerpt is the line of text holding the first occurrence f finds, without
// its line ending, and every occurrence on that line: what a forget shows
// of a place before it asks, so the user sees the words, not a line number.
// A value of many lines (a message, a revision) shows its first line
// holding it.
func excerpt(text string, f finder) (string, []Span) {
	spans := f(text)
	if len(spans) == 0 {
		return "", nil
	}
	at := spans[0].start
	start := strings.LastIndexByte(text[:at], '\n') + 1
	end := len(text)
	if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
		end = at + i
	}
	line := strings.TrimSuffix(text[start:end], "\r")
	var out []Span
	for _, s := range spans {
		if s.start >= start && s.end <= start+len(line) {
			out = append(out, Span{s.start - start, s.end - start})
		}
	}
	return line, out
}

// show fills pl's Text and Match from text.
func (pl *Place) show(text string, f finder) {
	pl.Text, pl.Match = excerpt(text, f)
}
