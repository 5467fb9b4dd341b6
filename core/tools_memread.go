package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"agent/memory"
)

// ToolMemoryRead reads a memory file, a line range of one or a day's log.
const ToolMemoryRead = "memory_read"

// toolMemoryRead lets the model open what a citation points at. It is
// offered in bootstrap too: it only reads, and reaches no file that
// memory_search (offered there) cannot already quote.
var toolMemoryRead = tool{
	// A day goes in path too (the schema has no date: every parameter is
	// re-read by a llama3.x model every turn); date is still accepted.
	spec: ToolSpec{Name: ToolMemoryRead,
		Parameters: []ToolParam{
			{Name: "path", Type: "string", Description: "file, citation or day", Required: true},
			{Name: "from_line", Type: "integer"},
			{Name: "lines", Type: "integer"},
		}},
	inBootstrap: true, inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		p, err := args.str("path", false)
		if err != nil {
			return "", err
		}
		day, err := args.str("date", false)
		if err != nil {
			return "", err
		}
		// An explicit 0 is what models send for "not given": it keeps the
		// citation's range.
		from, err := args.int("from_line", 0, math.MinInt32, math.MaxInt32)
		if err != nil {
			return "", err
		}
		lines, err := args.int("lines", 0, math.MinInt32, math.MaxInt32)
		if err != nil {
			return "", err
		}
		return ReadMemory(c.WS.Home, t.now, p, day, from, lines)
	},
}

// ReadMemory is memory_read: the lines of a memory file, a citation's range
// (path "logs/2026-11-20.md:14-22") or a day's log (path or day "2026-11-20",
// "today", "tuesday", resolved against now), fenced as recalled memory with
// their secrets as markers. from and lines of 0 keep the citation's range.
// The chat's tool and agent mcp serve (core/mcpserve) both read through it,
// so a client reaches no file the model cannot. A bad argument is an error
// matching ErrToolArgs or memory.ErrInvalid.
func ReadMemory(home string, now time.Time, p, day string, from, lines int) (string, error) {
	p, day = strings.TrimSpace(p), strings.TrimSpace(day)
	if day == "" && pathIsDay(p) {
		p, day = "", p
	}
	var cit memory.Citation
	switch {
	case p != "" && day != "":
		return "", fmt.Errorf("%w: give path or date, not both", errToolArgs)
	case p == "" && day == "":
		return "", fmt.Errorf("%w: give path (MEMORY.md, logs/2026-11-20.md or a citation like logs/2026-11-20.md:14-22) or date (YYYY-MM-DD, today, yesterday or a weekday)", errToolArgs)
	case day != "":
		d, err := memory.ResolveDay(now, day)
		if err != nil {
			return "", err
		}
		cit.Path = memory.LogPath(d)
	default:
		var err error
		if cit, err = memory.ParseCitation(p); err != nil {
			return "", err
		}
	}
	start, n := cit.From, 0
	if cit.To > 0 {
		n = cit.To - cit.From + 1
	}
	if from != 0 {
		start = from
	}
	if lines != 0 {
		n = lines
	}
	ex, err := memory.Read(home, cit.Path, start, n)
	if errors.Is(err, memory.ErrNotFound) && memory.LogDate(cit.Path) != "" {
		return noLogResult(home, memory.LogDate(cit.Path)), nil
	}
	if err != nil {
		return "", err
	}
	// The file is the user's, written by hand (a source folder's note, a
	// log edited in an editor): its secrets reach the model as markers,
	// as they reach the index. Line breaks are kept, so numbers hold.
	if text, found := memory.RedactLines(strings.Join(ex.Lines, "\n")); found != nil {
		ex.Lines = strings.Split(text, "\n")
	}
	return memReadResult(ex), nil
}

// ErrToolArgs is what a tool's bad argument matches (errors.Is).
var ErrToolArgs = errToolArgs

// memReadResult fences the lines like recalled memory (quoted data, its text
// neutralised) and says after the fence what was shown and how to read on.
func memReadResult(ex memory.Excerpt) string {
	path := attrValue(ex.Path) // a file name may hold a newline
	about := path
	switch {
	case strings.HasPrefix(ex.Path, "logs/") && memory.LogDate(ex.Path) != "":
		about += ", the log of " + longDate(ex.Date)
	case ex.Date != "":
		about += ", period " + ex.Date
	}
	if ex.TotalLines == 0 {
		return about + " is empty.\n"
	}
	var text strings.Builder
	for i, l := range ex.Lines {
		fmt.Fprintf(&text, "%d| %s\n", ex.StartLine+i, l)
	}
	var b strings.Builder
	b.WriteString(recallBlock(Recalled{Path: ex.Path, StartLine: ex.StartLine, EndLine: ex.EndLine, Date: ex.Date, Text: text.String()}))
	fmt.Fprintf(&b, "%s: lines %d-%d of %d.", about, ex.StartLine, ex.EndLine, ex.TotalLines)
	if ex.Clipped {
		fmt.Fprintf(&b, " Line %d is longer than the cap of %d bytes; only its beginning is shown.", ex.StartLine, memory.ReadMaxBytes)
	}
	if ex.Cut {
		fmt.Fprintf(&b, " Cut at the cap (%d lines or %d bytes): read on with memory_read(path=%q, from_line=%d).", memory.ReadMaxLines, memory.ReadMaxBytes, path, ex.EndLine+1)
	}
	b.WriteString("\n")
	return b.String()
}

// noLogResult answers a day without a log: not an error, a fact the model
// can tell the user, with the nearest days that have one.
func noLogResult(home, date string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no log for %s: logs/%s.md does not exist, so nothing was written down that day.", longDate(date), date)
	named := func(d string) string { return longDate(d) + " (logs/" + d + ".md)" }
	switch before, after := memory.NearestLogs(home, date); {
	case before != "" && after != "":
		fmt.Fprintf(&b, " The nearest logs are %s and %s.", named(before), named(after))
	case before != "":
		fmt.Fprintf(&b, " The latest log before it is %s.", named(before))
	case after != "":
		fmt.Fprintf(&b, " The first log after it is %s.", named(after))
	default:
		b.WriteString(" There are no daily logs yet.")
	}
	b.WriteString("\n")
	return b.String()
}

// longDate spells a YYYY-MM-DD date with its weekday ("Tuesday, 17 November
// 2026"), so the model can match "last Tuesday"; other dates are returned
// as they are.
func longDate(date string) string {
	d, err := time.Parse("2006-01-02", date)
	if err != nil {
		return date
	}
	return d.Format("Monday, 2 January 2006")
}

// pathIsDay tells a day given as memory_read's path ("2026-11-20",
// "today", "tuesday") from a file or a citation, which always name a
// markdown file.
func pathIsDay(p string) bool {
	if strings.Contains(p, ".md") {
		return false
	}
	_, err := memory.ResolveDay(time.Now(), p)
	return err == nil
}
