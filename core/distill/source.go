package distill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"agent/memory"
	"agent/memory/printable"
)

// LogsDir is where the daily logs live, relative to the workspace.
const LogsDir = "logs"

// Source is one daily log of a period, split into lines (1-based: Lines[0]
// is line 1), exactly as the index numbers them.
type Source struct {
	Path  string // "logs/2026-11-20.md"
	Day   string // "2026-11-20"
	Lines []string
}

// Sources reads the logs of a period, oldest first. Only logs/YYYY-MM-DD.md
// count (a log's date is its name, as in the index); a file that is not
// UTF-8 text is an error rather than something to skip silently.
func Sources(home string, p Period) ([]Source, error) { return Logs(home, p.Contains) }

// Logs reads the daily logs whose day (YYYY-MM-DD) keep accepts, oldest
// first, as Sources does.
func Logs(home string, keep func(day string) bool) ([]Source, error) {
	days, err := logDays(home)
	if err != nil {
		return nil, err
	}
	var out []Source
	for _, day := range days {
		if !keep(day) {
			continue
		}
		rel := LogsDir + "/" + day + ".md"
		b, err := os.ReadFile(filepath.Join(home, rel))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		if !utf8.Valid(b) {
			return nil, fmt.Errorf("read %s: not valid UTF-8 text", rel)
		}
		// A log edited by hand may hold a secret the writers never saw: the
		// model is shown its marker, as the index holds it (lines kept).
		text, _ := memory.RedactLines(string(b))
		out = append(out, Source{Path: rel, Day: day, Lines: splitLines(text)})
	}
	return out, nil
}

// logDays lists the dates of the daily logs, sorted.
func logDays(home string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(home, LogsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", LogsDir, err)
	}
	var days []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") || len(name) != len("2006-01-02.md") {
			continue
		}
		if _, err := time.Parse(time.DateOnly, name[:10]); err == nil {
			days = append(days, name[:10])
		}
	}
	sort.Strings(days)
	return days, nil
}

// splitLines splits text the way the chunker numbers it: "\n" ends a line,
// a final "\n" opens no extra line, a "\r" before it is not part of the line.
func splitLines(s string) []string {
	s = strings.TrimPrefix(s, "\ufeff")
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Chunk is one part of a period's logs that fits one model call: whole
// lines, each rendered with its path and number so the model can cite it.
type Chunk struct {
	Text string
	// Cut counts lines shortened to fit (a single line longer than a whole
	// chunk); they are reported, never cut silently.
	Cut int
}

// CharsPerToken is the pessimistic estimate used to fit chunks in num_ctx
// (English runs near 4; the same figure core uses before calibration).
const CharsPerToken = 3

// ChunkSources renders the sources as numbered lines and splits them into
// chunks of at most maxChars characters. Blank lines are left out (they
// keep their numbers) since they carry nothing to cite.
func ChunkSources(srcs []Source, maxChars int) []Chunk {
	var out []Chunk
	var b strings.Builder
	cut := 0
	header := ""
	flush := func() {
		if b.Len() > 0 {
			out = append(out, Chunk{Text: b.String(), Cut: cut})
		}
		b.Reset()
		cut = 0
		header = ""
	}
	for _, s := range srcs {
		for i, line := range s.Lines {
			if strings.TrimSpace(line) == "" {
				continue
			}
			h := "=== " + s.Path + " ===\n"
			l := fmt.Sprintf("%d| %s\n", i+1, line)
			shortened := len(h)+len(l) > maxChars
			if shortened {
				l = printable.CutBytes(strings.TrimSuffix(l, "\n"), maxChars-len(h)-1) + "\n"
			}
			need := len(l)
			if header != s.Path {
				need += len(h)
			}
			if b.Len()+need > maxChars {
				flush()
			}
			if shortened { // counted in the chunk that holds it, after a flush
				cut++
			}
			if header != s.Path {
				b.WriteString(h)
				header = s.Path
			}
			b.WriteString(l)
		}
	}
	flush()
	return out
}
