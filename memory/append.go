package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/gofrs/flock"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"agent/memory/confined"
	"agent/memory/printable"
	"agent/memory/secrets"
)

// DefaultSection is where a fact goes when the caller names no section: the
// first section of the MEMORY.md that `agent init` writes.
const DefaultSection = "User Facts"

// File names inside the workspace; they match core's constants (a leaf may
// not import core).
const (
	memoryFile = "MEMORY.md"
	logsDir    = "logs"
	// lockFile serialises every write to MEMORY.md and the logs. It is not
	// the target itself because a fact inserted mid-file replaces MEMORY.md
	// by rename, and a lock on a replaced inode guards nothing.
	lockFile = ".memory.lock"
)

// lockWait bounds how long a write waits for another one; writes take
// milliseconds, so only a stopped or hung process holds the lock this long.
const lockWait = 10 * time.Second

// badInSection is what a section name (often the model's choice) may not
// hold: a line break would end the heading and start text of its own, a
// '#' would open or close a heading, other control characters are never
// meant.
func badInSection(r rune) bool {
	return r == '#' || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == 0x85 || (unicode.IsControl(r) && r != '\t')
}

// AppendResult says where appended text landed: the workspace-relative
// slash path and the 1-based lines of the new entry (a fact's list item; a
// log entry's "###" heading and body).
type AppendResult struct {
	Path      string
	StartLine int
	EndLine   int
	// Secrets are the kinds of the secrets replaced by a marker before the
	// text was written (see memory/secrets), in order; nil when none.
	Secrets []string
}

// AppendFact adds text as one list item at the end of the "## section" of
// MEMORY.md (DefaultSection when section is empty), creating the section at
// the end of the file when no level-2 heading has that text (compared
// ignoring case and runs of blanks). When the section is last in the file the
// item is appended; otherwise the file is rewritten atomically with every
// byte the user wrote kept as it was. Text that is empty fails with
// ErrInvalid.
func AppendFact(home, text, section string) (AppendResult, error) {
	return appendFact(home, text, section, nil)
}

// appendFact is AppendFact. beforeRename is nil except in tests: it runs in
// a rewrite of MEMORY.md once the new content is written, just before the
// check for a change made meanwhile, so a test can save as an editor would
// at the worst moment.
func appendFact(home, text, section string, beforeRename func(path string)) (AppendResult, error) {
	res := AppendResult{Path: memoryFile}
	text, res.Secrets = secrets.Redact(text) // a secret never lands in memory
	lines := escapeHeadings(entryLines(text))
	if lines == nil {
		return res, fmt.Errorf("add to %s: empty fact: nothing to write: %w", memoryFile, ErrInvalid)
	}
	if strings.ContainsFunc(section, badInSection) {
		return res, fmt.Errorf("add to %s: section %q: a section name is one heading's text, without line breaks, '#' or control characters: %w", memoryFile, section, ErrInvalid)
	}
	var inSection []string // the section becomes a heading of MEMORY.md: no secret there either
	section, inSection = secrets.Redact(section)
	res.Secrets = append(res.Secrets, inSection...)
	section = printable.OneLine(section)
	if section == "" {
		section = DefaultSection
	}
	unlock, err := lock(home)
	if err != nil {
		return res, err
	}
	defer unlock()

	path := filepath.Join(home, memoryFile)
	if err := insideWorkspace(home, path); err != nil {
		return res, fmt.Errorf("add to %s: %w", memoryFile, err)
	}
	// An editor may save between our read and our rename (it does not take
	// our lock); when the file changed meanwhile, start over from the new one.
	for attempt := 0; ; attempt++ {
		data, existed, err := readForUpdate(path)
		if err != nil {
			return res, fmt.Errorf("add to %s: %w", path, err)
		}
		plan := planFact(data, lines, section)
		res.StartLine, res.EndLine = plan.start, plan.end
		if plan.offset == len(data) {
			return res, appendUntorn(home, memoryFile, plan.insert)
		}
		out := make([]byte, 0, len(data)+len(plan.insert))
		out = append(append(append(out, data[:plan.offset]...), plan.insert...), data[plan.offset:]...)
		err = replaceFile(home, memoryFile, out, func() bool {
			if beforeRename != nil {
				beforeRename(path)
			}
			return unchanged(path, existed, data)
		})
		if errors.Is(err, errChanged) && attempt < 3 {
			continue
		}
		return res, err
	}
}

// AppendLog adds a timestamped note to the daily log of at's date, as a
// "### HH:MM" entry. The caller passes at in the user's time zone.
func AppendLog(home string, at time.Time, text string) (AppendResult, error) {
	return AppendLogEntry(home, at, at.Format("15:04"), text)
}

// AppendLogEntry appends a "### heading" entry with body to the daily log of
// at's date (logs/YYYY-MM-DD.md), creating logs/, the file and its
// "# YYYY-MM-DD" title on the first write of the day. Chat turns use it with
// headings like "14:05 · session kitchen". Lines of body that would read as
// a heading are escaped; a body that would still swallow what follows (an
// unclosed code fence or HTML comment) is written as an indented code block.
func AppendLogEntry(home string, at time.Time, heading, body string) (AppendResult, error) {
	return appendLogEntry(home, at, heading, body, true)
}

// AppendRedactedLogEntry is AppendLogEntry for a body whose texts the
// caller has redacted already: a chat turn redacts its message and reply
// once, for state.db and the log alike (Secrets is then nil).
func AppendRedactedLogEntry(home string, at time.Time, heading, body string) (AppendResult, error) {
	return appendLogEntry(home, at, heading, body, false)
}

func appendLogEntry(home string, at time.Time, heading, body string, redact bool) (AppendResult, error) {
	date := at.Format("2006-01-02")
	rel := logsDir + "/" + date + ".md"
	res := AppendResult{Path: rel}
	heading = printable.OneLine(heading)
	if heading == "" {
		return res, fmt.Errorf("append to %s: empty heading: %w", rel, ErrInvalid)
	}
	if redact {
		body, res.Secrets = secrets.Redact(body) // a secret never lands in memory
	}
	lines := entryLines(body)
	if lines == nil {
		return res, fmt.Errorf("append to %s: empty note: nothing to write: %w", rel, ErrInvalid)
	}
	lines = containLogBody(lines)

	// Mkdir, not MkdirAll: a missing workspace is an error, not something
	// to create by accident.
	if err := confined.Mkdir(home, logsDir, 0o700); err != nil {
		return res, fmt.Errorf("append to %s: %w", rel, err)
	}
	unlock, err := lock(home)
	if err != nil {
		return res, err
	}
	defer unlock()

	path := filepath.Join(home, logsDir, date+".md")
	if err := insideWorkspace(home, path); err != nil {
		return res, fmt.Errorf("append to %s: %w", rel, err)
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("append to %s: %w", path, err)
	}
	eol := lineEnding(data)
	var b bytes.Buffer
	n := startAppend(&b, data, eol)
	if len(bytes.TrimSpace(data)) == 0 {
		b.WriteString("# " + date + eol + eol)
		n += 2
	}
	b.WriteString("### " + heading + eol + eol)
	res.StartLine = n + 1
	writeLines(&b, lines, "", "", eol)
	res.EndLine = n + 2 + len(lines)
	return res, appendUntorn(home, rel, b.Bytes())
}

// factPlan is where and what AppendFact writes.
type factPlan struct {
	offset     int    // byte offset of the insertion in the file
	insert     []byte // what goes there
	start, end int    // the item's lines in the new file
}

// planFact finds the end of the section's own text (before any subsection)
// and builds the list item to insert there, or a new section for the end.
func planFact(data []byte, lines []string, section string) factPlan {
	eol := lineEnding(data)
	c := newChunker(data)
	var blocks []block
	if len(c.lines) > 0 {
		blocks = c.blockSpans(c.parse(), span{c.lineOf(c.base), len(c.lines)})
	}
	at := -1 // index in blocks of the section's heading
	for i, bl := range blocks {
		if h, ok := bl.node.(*ast.Heading); ok && h.Level == 2 && strings.EqualFold(c.headingText(h), section) {
			at = i
			break
		}
	}
	var b bytes.Buffer
	if at < 0 {
		n := startAppend(&b, data, eol)
		b.WriteString("## " + section + eol + eol)
		writeLines(&b, lines, "- ", "  ", eol)
		return factPlan{offset: len(data), insert: b.Bytes(), start: n + 3, end: n + 2 + len(lines)}
	}
	last := at
	for last+1 < len(blocks) && blocks[last+1].node.Kind() != ast.KindHeading {
		last++
	}
	after := blocks[last].end // the item goes after this line
	offset := len(data)
	if after < len(c.lines) {
		offset = c.lines[after]
	} else if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteString(eol) // the last line gets its missing line end
	}
	n := after
	// A list item straight after a paragraph or the heading reads as part of
	// it in the source; after an existing list it continues that list.
	if blocks[last].node.Kind() != ast.KindList {
		b.WriteString(eol)
		n++
	}
	writeLines(&b, lines, "- ", "  ", eol)
	// Keep a blank line before what follows, so a following setext heading's
	// text can never become a lazy continuation of the item.
	if after < len(c.lines) && !c.blank(after+1) {
		b.WriteString(eol)
	}
	return factPlan{offset: offset, insert: b.Bytes(), start: n + 1, end: n + len(lines)}
}

// entryLines splits user text into lines for an entry: "\r\n" read as "\n",
// leading blank lines and trailing blanks dropped, the first line's
// indentation dropped. It returns nil when nothing is left.
func entryLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	s = strings.TrimLeft(s, " \t\r\n\f\v")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// escapeHeadings returns lines with escapeHeading applied to each.
func escapeHeadings(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = escapeHeading(l)
	}
	return out
}

// escapeHeading puts a backslash before the marker of a line that could
// otherwise become a heading: an ATX "# …" line, or a setext underline
// ("===", "---") that would turn the line above into one. The escape keeps
// the text readable as typed and renders exactly as typed. Lines indented four
// columns or more are code and left alone.
func escapeHeading(line string) string {
	col, i := 0, 0
	for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		if line[i] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	if col >= 4 || i == len(line) {
		return line
	}
	rest := line[i:]
	switch rest[0] {
	case '#':
		n := len(rest) - len(strings.TrimLeft(rest, "#"))
		if n <= 6 && (n == len(rest) || rest[n] == ' ' || rest[n] == '\t') {
			return line[:i] + `\` + rest
		}
	case '=', '-':
		if strings.Trim(strings.TrimRight(rest, " \t"), rest[:1]) == "" {
			return line[:i] + `\` + rest
		}
	}
	return line
}

// containLogBody escapes heading-like lines of a log entry's body and makes
// sure the body ends where the entry ends: parsed with a heading after it,
// it must hold no top-level heading and that heading must still be one.
// Otherwise (an unclosed fence, an unterminated HTML comment or <pre>) the
// body, unescaped, becomes an indented code block, which always ends at the
// next unindented line.
func containLogBody(raw []string) []string {
	lines := escapeHeadings(raw)
	var b bytes.Buffer
	writeLines(&b, lines, "", "", "\n")
	b.WriteString("\n### end\n")
	doc := markdownParser().Parse(text.NewReader(b.Bytes()))
	headings := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() == ast.KindHeading {
			headings++
		}
	}
	if headings == 1 && doc.LastChild().Kind() == ast.KindHeading {
		return lines
	}
	out := make([]string, len(raw))
	for i, l := range raw {
		if strings.TrimSpace(l) != "" {
			l = "    " + l
		}
		out[i] = l
	}
	return out
}

// writeLines writes lines with a prefix on the first and an indent on the
// others (blank lines stay empty), each ended by eol.
func writeLines(b *bytes.Buffer, lines []string, first, indent, eol string) {
	for i, l := range lines {
		switch {
		case i == 0:
			b.WriteString(first)
		case l != "":
			b.WriteString(indent)
		}
		b.WriteString(l)
		b.WriteString(eol)
	}
}

// startAppend writes what must precede appended text at the end of data: the
// last line's missing line end and a blank line after any text. It returns
// the number of lines before the appended text's first line.
func startAppend(b *bytes.Buffer, data []byte, eol string) int {
	starts := lineStarts(data)
	n := len(starts)
	if n == 0 {
		return 0
	}
	if data[len(data)-1] != '\n' {
		b.WriteString(eol)
	}
	last := data[starts[n-1]:]
	if len(bytes.TrimSpace(last)) > 0 {
		b.WriteString(eol)
		n++
	}
	return n
}

// lineEnding returns "\r\n" for a file whose first line ends so, else "\n":
// what we add matches what the user's editor writes.
func lineEnding(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lock takes the workspace's exclusive memory lock, polling (gofrs/flock)
// so that a hung holder turns into an error rather than a hang.
func lock(home string) (func(), error) {
	path := filepath.Join(home, lockFile)
	fl := flock.New(path)
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	switch {
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("lock %s: %w", path, err)
	case !ok:
		return nil, fmt.Errorf("memory files are locked by another process (%s held for %s)", path, lockWait)
	}
	// A writer killed mid-append left its pending-append record: finish that note before
	// anything else is written after it.
	if err := recoverAppend(home); err != nil {
		fl.Unlock()
		return nil, err
	}
	return func() { fl.Unlock() }, nil
}

// appendBytes appends b to rel in home (created if missing) in one write and
// syncs; never outside home (package confined).
func appendBytes(home, rel string, b []byte) error {
	if err := confined.Append(home, rel, b); err != nil {
		return fmt.Errorf("append to %s: %w", rel, err)
	}
	return nil
}

var errChanged = errors.New("changed by another program while being rewritten")

// readForUpdate reads a file for a rewrite; a later unchanged() tells
// whether someone else wrote it in between. A missing file reads as empty,
// and exists is false.
func readForUpdate(path string) (data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// unchanged reports whether path still holds exactly data (or, when it did
// not exist, still does not). It compares the bytes, not size and mtime: an
// editor's same-size save within one tick of the file clock keeps both
// (MEMORY.md is small, so reading it again costs little).
func unchanged(path string, existed bool, data []byte) bool {
	now, err := os.ReadFile(path)
	if !existed {
		return errors.Is(err, os.ErrNotExist)
	}
	return err == nil && bytes.Equal(now, data)
}

// replaceFile atomically replaces rel in home with data (package confined:
// temp file, fsync, rename, fsync of the directory; a symlink inside the
// workspace is followed so the link itself survives; never outside home).
// The file's permissions are kept. ok is checked just before the rename;
// false aborts with errChanged.
func replaceFile(home, rel string, data []byte, ok func() bool) error {
	err := confined.Replace(home, rel, data, ok)
	if errors.Is(err, confined.ErrAborted) {
		err = errChanged
	}
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", rel, err)
	}
	return nil
}

// insideWorkspace refuses to write through a symlink (the file's own, or a
// directory's on its way) that leads outside the workspace. The index never
// reads through such a link, so what was written there could never be
// recalled, and the model's tools must not reach outside the workspace.
// Links that stay inside are followed as usual.
func insideWorkspace(home, path string) error {
	root, err := filepath.EvalSymlinks(home)
	if err != nil {
		return err
	}
	target := path
	for {
		resolved, err := filepath.EvalSymlinks(target)
		if err == nil {
			if rest, err := filepath.Rel(target, path); err == nil && rest != "." {
				resolved = filepath.Join(resolved, rest)
			}
			rel, err := filepath.Rel(root, resolved)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return invalidf("%s leads outside the workspace (to %s); not writing through that symlink", path, resolved)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if fi, lerr := os.Lstat(target); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return invalidf("%s is a broken symlink; not writing through it", target)
		}
		// A file that does not exist yet: check the directory it will be in.
		parent := filepath.Dir(target)
		if parent == target {
			return nil
		}
		target = parent
	}
}
