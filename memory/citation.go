package memory

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Citation is a memory file reference as the model writes it, parsed.
type Citation struct {
	Path string // cleaned workspace-relative slash path
	From int    // first line of a ":14-22" or ":14" suffix; 0 when none
	To   int    // last line of the suffix; 0 when none
}

// ParseCitation reads a memory file as a model names it. The accepted
// forms, outermost first (TestParseCitationAcceptsHowModelsWriteThem has
// examples of each, first the forms models have been seen to write;
// TestParseCitationRefusals what is refused):
//
//	citation = wrapped | ref [heading] | wrapped-ref heading
//	wrapped  = one of `…` '…' "…" […] (…) <…> ‹…› around a citation,
//	           with spaces inside; any nesting
//	heading  = "›" text | " > " text       names what the range holds; ignored
//	ref      = file [":" range]
//	range    = N | N "-" M | N "–" M        spaces around the dash; line 0 is 1
//	file     = ["./"] path                  MEMORY.md (any case), logs/**/*.md,
//	                                        digests/**/*.md
//	         | YYYY-MM-DD [".md"]           a log's bare date: logs/YYYY-MM-DD.md
//	         | NAME ":" path                a note of a notes source (NAME:path.md)
//
// Anything else is refused with ErrInvalid and a sentence the model can act
// on: nothing named, a backwards range, absolute paths, "..", hidden names,
// SOUL.md, the databases, directories, any other file, and a source's path
// that is absolute, climbs out, is hidden or is not markdown. Whether the file
// exists and where its symlinks lead is for Read. A new form is one more
// step below, in the order of the grammar.
func ParseCitation(s string) (Citation, error) {
	var c Citation
	ref := unwrap(cutHeading(unwrap(s)))
	if ref == "" {
		return c, fmt.Errorf("no file named; give a path like MEMORY.md or logs/2026-11-20.md, or a date: %w", ErrInvalid)
	}
	file, from, to, err := cutRange(ref)
	if err != nil {
		return c, err
	}
	c.From, c.To = from, to
	c.Path, err = memoryPath(file)
	return c, err
}

// wrappers are the pairs a citation may come inside.
var wrappers = map[rune]rune{'`': '`', '\'': '\'', '"': '"', '[': ']', '(': ')', '<': '>', '‹': '›'}

// unwrap removes matched pairs of wrappers and the spaces inside them,
// outermost first.
func unwrap(s string) string {
	s = strings.TrimSpace(s)
	for len(s) >= 2 {
		open, n := utf8.DecodeRuneInString(s)
		closing, m := utf8.DecodeLastRuneInString(s)
		if want, ok := wrappers[open]; !ok || want != closing || n+m > len(s) {
			return s
		}
		s = strings.TrimSpace(s[n : len(s)-m])
	}
	return s
}

// cutHeading drops a heading after "›" (or a plain " > "): it only names
// what the range holds.
func cutHeading(s string) string {
	if i := strings.Index(s, "›"); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	if i := strings.Index(s, " > "); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// cutRange splits a ":N", ":N-M" or ":N–M" suffix off ref. A colon followed
// by anything else is part of the name (and refused by memoryPath as no
// memory file).
func cutRange(ref string) (file string, from, to int, err error) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return ref, 0, 0, nil
	}
	n, rest, ok := number(ref[i+1:])
	if !ok {
		return ref, 0, 0, nil
	}
	m := n
	if rest != "" {
		dash := strings.TrimLeftFunc(rest, unicode.IsSpace)
		after, cut := strings.CutPrefix(dash, "-")
		if !cut {
			after, cut = strings.CutPrefix(dash, "–")
		}
		if m, rest, ok = number(strings.TrimLeftFunc(after, unicode.IsSpace)); !cut || !ok || rest != "" {
			return ref, 0, 0, nil
		}
	}
	file = ref[:i]
	if n < 0 || m < 0 {
		return file, 0, 0, fmt.Errorf("the line range of %q is too large a number; give from_line and lines instead: %w", ref, ErrInvalid)
	}
	n = max(n, 1)
	if m < n {
		return file, 0, 0, fmt.Errorf("the line range %d-%d runs backwards; give from_line and lines instead: %w", n, m, ErrInvalid)
	}
	return file, n, m, nil
}

// number reads the digits at the start of s: their value (-1 when it does
// not fit an int), the rest, and whether there were any.
func number(s string) (n int, rest string, ok bool) {
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(s)
	}
	if end == 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil {
		n = -1
	}
	return n, s[end:], true
}

// memoryPath turns the file of a citation into a cleaned workspace-relative
// name, or refuses it.
func memoryPath(file string) (string, error) {
	if name, rest, ok := SplitSourcePath(file); ok {
		return name + ":" + path.Clean(strings.TrimPrefix(rest, "./")), sourceNoteName(name, rest)
	}
	if strings.HasPrefix(file, "/") || strings.HasPrefix(file, "~") || strings.HasPrefix(file, `\`) || filepath.IsAbs(file) || (len(file) > 1 && file[1] == ':') {
		return "", fmt.Errorf("%q is an absolute path; name a memory file relative to the workspace, like logs/2026-11-20.md: %w", file, ErrInvalid)
	}
	for _, el := range strings.Split(file, "/") {
		if el == ".." {
			return "", fmt.Errorf("%q climbs out with \"..\"; only memory files inside the workspace can be read: %w", file, ErrInvalid)
		}
	}
	rel := path.Clean(strings.TrimPrefix(file, "./"))
	switch {
	case strings.EqualFold(rel, memoryFile):
		rel = memoryFile
	case isBareDate(rel):
		rel = logsDir + "/" + strings.TrimSuffix(rel, ".md") + ".md"
	}
	if err := memoryName(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// sourceNoteName refuses a path inside the source name that is not one of
// its notes: absolute, climbing out, hidden, or not markdown.
func sourceNoteName(name, rel string) error {
	if strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s:%s is absolute; name a note relative to its source folder, like %s:projects/plan.md: %w", name, rel, name, ErrInvalid)
	}
	for _, el := range strings.Split(rel, "/") {
		if el == ".." {
			return fmt.Errorf("%s:%s climbs out with \"..\"; only notes inside the source folder can be read: %w", name, rel, ErrInvalid)
		}
		if strings.HasPrefix(el, ".") && el != "." {
			return fmt.Errorf("%s:%s is a hidden file, not a note: %w", name, rel, ErrInvalid)
		}
	}
	if !strings.HasSuffix(rel, ".md") {
		return fmt.Errorf("%s:%s is not a markdown note; name one, like %s:projects/plan.md: %w", name, rel, name, ErrInvalid)
	}
	return nil
}

// isBareDate reports a log's name without its folder: "2026-11-20" or
// "2026-11-20.md" (digits only; the date need not exist).
func isBareDate(s string) bool {
	s = strings.TrimSuffix(s, ".md")
	if len(s) != len("2006-01-02") {
		return false
	}
	for i, r := range s {
		if (i == 4 || i == 7) != (r == '-') || r != '-' && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
