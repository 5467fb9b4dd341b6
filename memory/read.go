package memory

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"agent/memory/printable"
)

// Caps on one read: a tool result goes back into the model's context on the
// next round, and four rounds of them must leave a default 8192-token window
// room to answer. 6000 bytes is about 1500-2000 tokens.
const (
	ReadMaxLines = 200
	ReadMaxBytes = 6000
)

// Files a read never returns although they live in the workspace: the
// persona is already in the context, and the databases are not text.
var readDenied = []string{"SOUL.md", "state.db", "index.db"}

// Excerpt is a run of lines read from one memory file.
type Excerpt struct {
	Path       string   // workspace-relative, slash-separated, as requested
	Date       string   // a log's day ("2026-11-20"), a digest's period, else ""
	StartLine  int      // 1-based, inclusive; 0 when the file is empty
	EndLine    int      // 1-based, inclusive; 0 when the file is empty
	TotalLines int      // lines in the whole file
	Lines      []string // lines StartLine..EndLine, without their line ends
	// Cut says the cap stopped the read before the end that was asked for;
	// the next line to read is EndLine+1.
	Cut bool
	// Clipped says line StartLine alone was longer than ReadMaxBytes and
	// only its beginning is in Lines.
	Clipped bool
	size    int // bytes in Lines, line ends counted
}

// memoryName refuses a cleaned relative name that is not a memory file.
func memoryName(rel string) error {
	if name, rest, ok := SplitSourcePath(rel); ok {
		return sourceNoteName(name, rest)
	}
	for _, d := range readDenied {
		if strings.EqualFold(rel, d) {
			if d == "SOUL.md" {
				return fmt.Errorf("SOUL.md is your persona and is already in your context; memory_read reads MEMORY.md, logs/ and digests/: %w", ErrInvalid)
			}
			return fmt.Errorf("%s is a database, not a memory file; memory_read reads MEMORY.md, logs/ and digests/: %w", d, ErrInvalid)
		}
	}
	if rel == "." || rel == logsDir || rel == digestsDir || rel == ImportsDir {
		return fmt.Errorf("%q is a directory; name one file in it, like logs/2026-11-20.md, or pass date: %w", rel, ErrInvalid)
	}
	els := strings.Split(rel, "/")
	for _, el := range els {
		if strings.HasPrefix(el, ".") {
			return fmt.Errorf("%q is a hidden file, not a memory file: %w", rel, ErrInvalid)
		}
	}
	if rel == memoryFile || len(els) > 1 && inNoteDir(rel) && strings.HasSuffix(rel, ".md") {
		return nil
	}
	return fmt.Errorf("%q is not a memory file; memory_read reads MEMORY.md, logs/*.md, digests/*.md, imports/**/*.md and the notes of a source (NAME:path.md): %w", rel, ErrInvalid)
}

// Read returns lines of the memory file rel (as ParseCitation cleaned it),
// starting at line from and at most lines of them (0: to the end), within
// ReadMaxLines and ReadMaxBytes. from 0 means the first line; a negative from
// counts from the end (-1 is the last line). Only a regular .md file inside
// home is read: it is opened through an os.Root, so no symlink leads out,
// and a link inside the workspace to SOUL.md, a database or a non-markdown
// file is refused. A missing file fails with ErrNotFound, a refusal or an
// impossible range with ErrInvalid; the messages say what to do instead.
// Line numbers match the index's citations: lines end at "\n", a "\r"
// before it and a leading BOM are not part of a line.
func Read(home, rel string, from, lines int) (Excerpt, error) {
	ex := Excerpt{Path: rel, Date: FileDate(rel)}
	if err := memoryName(rel); err != nil {
		return ex, err
	}
	if lines < 0 {
		return ex, fmt.Errorf("lines must be 1 or more (or left out for the whole file), got %d: %w", lines, ErrInvalid)
	}
	if src, inSrc, ok := SplitSourcePath(rel); ok {
		dir, err := sourceDir(home, src)
		if err != nil {
			return ex, err
		}
		return readFrom(ex, dir, inSrc, from, lines)
	}
	return readFrom(ex, home, rel, from, lines)
}

// sourceDir is the folder of the source name.
func sourceDir(home, name string) (string, error) {
	list, err := LoadSources(home)
	if err != nil {
		return "", err
	}
	for _, s := range list {
		if s.Name == name {
			return s.Dir, nil
		}
	}
	return "", fmt.Errorf("no notes source named %q (agent memory sources list): %w", name, ErrNotFound)
}

// readFrom is Read of rel inside dir, the workspace or a source's folder.
func readFrom(ex Excerpt, dir, rel string, from, lines int) (Excerpt, error) {
	f, err := openConfined(dir, rel)
	if err != nil {
		return ex, err
	}
	defer f.Close()
	if from < 0 {
		total, err := eachLine(f, func(int, []byte) error { return nil })
		if err != nil {
			return ex, fmt.Errorf("read %s: %w", rel, err)
		}
		if from = total + from + 1; from < 1 {
			from = 1
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return ex, fmt.Errorf("read %s: %w", rel, err)
		}
	}
	from = max(from, 1)
	want := 0 // last line asked for; 0: to the end
	if lines > 0 {
		want = from + lines - 1
	}
	if ex.TotalLines, err = eachLine(f, func(n int, line []byte) error { return ex.keep(n, line, from, want) }); err != nil {
		return ex, fmt.Errorf("read %s: %w", rel, err)
	}
	if ex.TotalLines > 0 && from > ex.TotalLines {
		return ex, fmt.Errorf("from_line %d is past the end: %s has %d lines: %w", from, rel, ex.TotalLines, ErrInvalid)
	}
	return ex, nil
}

// keep adds line n to the excerpt when it is in from..want (want 0: to the
// end) and within the caps; past a cap it only marks the cut.
func (ex *Excerpt) keep(n int, line []byte, from, want int) error {
	if n < from || want > 0 && n > want || ex.Cut {
		return nil
	}
	if !utf8.Valid(line) || bytes.IndexByte(line, 0) >= 0 {
		return fmt.Errorf("line %d is not UTF-8 text (a binary file?): %w", n, ErrInvalid)
	}
	if len(ex.Lines) == ReadMaxLines || len(ex.Lines) > 0 && ex.size+len(line)+1 > ReadMaxBytes {
		ex.Cut = true
		return nil
	}
	if len(line)+1 > ReadMaxBytes { // one line longer than the whole cap
		line = clipUTF8(line, ReadMaxBytes-1)
		ex.Clipped = true
	}
	ex.size += len(line) + 1
	if ex.StartLine == 0 {
		ex.StartLine = n
	}
	ex.EndLine = n
	ex.Lines = append(ex.Lines, string(line))
	return nil
}

// eachLine calls fn with every line of r and its 1-based number, numbered
// as the chunker numbers them: lines end at "\n", a "\r" before it and a
// leading BOM are not part of a line. It returns how many lines there were.
func eachLine(r io.Reader, fn func(n int, line []byte) error) (int, error) {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return n - 1, nil
		}
		if err != nil && err != io.EOF {
			return n - 1, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if n == 1 {
			line = bytes.TrimPrefix(line, bom)
		}
		if err := fn(n, line); err != nil {
			return n, err
		}
	}
}

// clipUTF8 cuts b to at most n bytes without splitting a character.
func clipUTF8(b []byte, n int) []byte {
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// openConfined opens rel inside home through an os.Root, so neither ".."
// nor a symlink can lead out, and checks that what it opened is a regular
// markdown file that is not one of readDenied (a link inside the workspace
// may point at those).
func openConfined(home, rel string) (*os.File, error) {
	root, err := os.OpenRoot(home)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", home, err)
	}
	defer root.Close()
	name := filepath.FromSlash(rel)
	f, err := root.Open(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist: %w", rel, ErrNotFound)
	case errors.Is(err, os.ErrPermission):
		return nil, fmt.Errorf("%s cannot be read: permission denied: %w", rel, ErrInvalid)
	case err != nil:
		// The name was checked, so only a symlink can have led out.
		return nil, fmt.Errorf("%s leads outside the workspace through a symlink, or cannot be opened (%v); only memory files inside the workspace can be read: %w", rel, unwrapPathError(err), ErrInvalid)
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkTarget(home, root, rel, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkTarget refuses what a name resolved to when it is not a regular .md
// file, or is one of readDenied.
func checkTarget(home string, root *os.Root, rel string, fi os.FileInfo) error {
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory; name one file in it, like logs/2026-11-20.md, or pass date: %w", rel, ErrInvalid)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: %w", rel, ErrInvalid)
	}
	for _, d := range readDenied {
		if other, err := root.Stat(d); err == nil && os.SameFile(fi, other) {
			return fmt.Errorf("%s is a link to %s, which memory_read does not read: %w", rel, d, ErrInvalid)
		}
	}
	// A link inside the workspace may name a .md but point at mcp.json or
	// the like: the file finally opened must be markdown too. The check of
	// the opened file against the resolved name closes the race with a link
	// changed in between.
	real, err := filepath.EvalSymlinks(filepath.Join(home, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("%s cannot be resolved: %w", rel, err)
	}
	if !strings.HasSuffix(real, ".md") {
		return fmt.Errorf("%s is a link to %s, which is not a markdown memory file: %w", rel, filepath.Base(real), ErrInvalid)
	}
	if again, err := os.Stat(real); err != nil || !os.SameFile(fi, again) {
		return fmt.Errorf("%s changed while it was opened; try again: %w", rel, ErrInvalid)
	}
	return nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// FileDate is the date a memory file stands for: a log's day from its name
// (logs/2026-11-20.md → "2026-11-20"), a digest's period from its name
// (digests/2026-W47.md → "2026-W47"), else "".
func FileDate(rel string) string {
	// A digest is named by its period (2026-W47, 2026-11); the index dates
	// it by the period's first day (LogDate), but the period says more.
	if dir, name := path.Split(rel); dir == digestsDir+"/" && strings.HasSuffix(name, ".md") {
		return strings.TrimSuffix(name, ".md")
	}
	return LogDate(rel)
}

// weekdays names each day as a model or user may write it.
var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday,
	"monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday,
	"friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
}

// ResolveDay turns a day as the model names it into a date, counted in
// now's location (the user's zone): "YYYY-MM-DD", "today", "yesterday", a
// weekday name ("tuesday", "tue": the latest such day, today included) or
// "last tuesday" (the latest such day before today). Anything else fails
// with ErrInvalid, saying which forms are accepted.
func ResolveDay(now time.Time, day string) (time.Time, error) {
	s := strings.ToLower(printable.OneLine(day))
	// Noon keeps day arithmetic clear of daylight-saving jumps.
	today := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, now.Location())
	switch s {
	case "today":
		return today, nil
	case "yesterday":
		return today.AddDate(0, 0, -1), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t.Add(12 * time.Hour), nil
	}
	before := false
	if rest, ok := strings.CutPrefix(s, "last "); ok {
		s, before = rest, true
	}
	if wd, ok := weekdays[s]; ok {
		back := (int(today.Weekday()) - int(wd) + 7) % 7
		if back == 0 && before {
			back = 7
		}
		return today.AddDate(0, 0, -back), nil
	}
	return time.Time{}, fmt.Errorf("date %q is not understood; give YYYY-MM-DD, today, yesterday, a weekday like tuesday, or last tuesday: %w", day, ErrInvalid)
}

// LogPath is the workspace-relative daily log of a day.
func LogPath(day time.Time) string { return logsDir + "/" + day.Format("2006-01-02") + ".md" }

// NearestLogs returns the dates of the daily logs closest before and after
// date ("" where there is none), from the names in logs/, so a day without a
// log can point at days that have one.
func NearestLogs(home, date string) (before, after string) {
	root, err := os.OpenRoot(home)
	if err != nil {
		return "", ""
	}
	defer root.Close()
	d, err := root.Open(logsDir)
	if err != nil {
		return "", ""
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		ld := LogDate(logsDir + "/" + n)
		switch {
		case ld == "" || ld == date:
		case ld < date && ld > before:
			before = ld
		case ld > date && (after == "" || ld < after):
			after = ld
		}
	}
	return before, after
}
