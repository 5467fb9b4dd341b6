package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readWorkspace writes files (workspace-relative name → content) into a
// fresh directory and returns it.
func readWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// The accepted forms of ParseCitation's grammar, each production at least
// once; the first rows are the forms models have been seen to write.
func TestParseCitationAcceptsHowModelsWriteThem(t *testing.T) {
	for _, tc := range []struct {
		in       string
		path     string
		from, to int
	}{
		{"MEMORY.md", "MEMORY.md", 0, 0},
		{"memory.md", "MEMORY.md", 0, 0},
		{"./MEMORY.md", "MEMORY.md", 0, 0},
		{"logs/2026-11-20.md", "logs/2026-11-20.md", 0, 0},
		{"logs/2026-11-20.md:14-22", "logs/2026-11-20.md", 14, 22},
		{"logs/2026-11-20.md:14 - 22", "logs/2026-11-20.md", 14, 22},
		{"logs/2026-11-20.md:14–22", "logs/2026-11-20.md", 14, 22},
		{"logs/2026-11-20.md:14", "logs/2026-11-20.md", 14, 14},
		{"logs/2026-11-20.md:0-3", "logs/2026-11-20.md", 1, 3},
		{"logs/2026-11-20.md:14-22 › Trip planning", "logs/2026-11-20.md", 14, 22},
		{"MEMORY.md:3-5 › Memory › User Facts", "MEMORY.md", 3, 5},
		{"logs/2026-11-20.md › Trip planning", "logs/2026-11-20.md", 0, 0},
		{"logs/2026-11-20.md:14-22 > Trip planning", "logs/2026-11-20.md", 14, 22},
		{"[logs/2026-11-20.md:14-22]", "logs/2026-11-20.md", 14, 22},
		{"`[logs/2026-11-20.md:14-22]`", "logs/2026-11-20.md", 14, 22},
		{`"logs/2026-11-20.md:14-22 › Trip planning"`, "logs/2026-11-20.md", 14, 22},
		{"(MEMORY.md)", "MEMORY.md", 0, 0},
		{"  logs/2026-11-20.md  ", "logs/2026-11-20.md", 0, 0},
		{"2026-11-20.md", "logs/2026-11-20.md", 0, 0},
		{"2026-11-20", "logs/2026-11-20.md", 0, 0},
		{"2026-11-20:4-6", "logs/2026-11-20.md", 4, 6},
		{"logs/2026/trip.md:2-3", "logs/2026/trip.md", 2, 3},
		{"digests/2026-W47.md", "digests/2026-W47.md", 0, 0},
		{"logs//2026-11-20.md", "logs/2026-11-20.md", 0, 0},
		// wrapped: every pair, nested, spaces inside
		{"‹logs/2026-11-20.md:14-22›", "logs/2026-11-20.md", 14, 22},
		{"<MEMORY.md>", "MEMORY.md", 0, 0},
		{"'logs/2026-11-20.md'", "logs/2026-11-20.md", 0, 0},
		{"[ ( `MEMORY.md:2` ) ]", "MEMORY.md", 2, 2},
		// wrapped-ref heading
		{"[logs/2026-11-20.md:14-22] › Trip planning", "logs/2026-11-20.md", 14, 22},
		{"`MEMORY.md:3-5` > User Facts", "MEMORY.md", 3, 5},
		// heading without spaces around "›"
		{"logs/2026-11-20.md:14-22›Trip planning", "logs/2026-11-20.md", 14, 22},
		// range: spaces around an en dash
		{"2026-11-20.md:4 – 6", "logs/2026-11-20.md", 4, 6},
	} {
		c, err := ParseCitation(tc.in)
		if err != nil {
			t.Errorf("ParseCitation(%q): %v", tc.in, err)
			continue
		}
		if c.Path != tc.path || c.From != tc.from || c.To != tc.to {
			t.Errorf("ParseCitation(%q) = %+v, want %s %d-%d", tc.in, c, tc.path, tc.from, tc.to)
		}
	}
}

func TestParseCitationRefusals(t *testing.T) {
	for _, tc := range []struct{ in, says string }{
		{"", "no file named"},
		{"[]", "no file named"},
		{"../MEMORY.md", `climbs out with ".."`},
		{"logs/../../etc/passwd.md", `climbs out with ".."`},
		{"logs/../SOUL.md", `climbs out with ".."`},
		{"/etc/passwd", "absolute path"},
		{"/home/u/.agent/MEMORY.md", "absolute path"},
		{"~/.agent/MEMORY.md", "absolute path"},
		{`C:\notes\MEMORY.md`, "absolute path"},
		{"SOUL.md", "already in your context"},
		{"soul.md:1-3", "already in your context"},
		{"state.db", "is a database"},
		{"index.db", "is a database"},
		{"logs", "is a directory"},
		{"logs/", "is a directory"},
		{"digests", "is a directory"},
		{".", "is a directory"},
		{"logs/.2026-11-20.md.swp", "hidden file"},
		{".git/config", "hidden file"},
		{"mcp.json", "not a memory file"},
		{"skills/x/SKILL.md", "not a memory file"},
		{"logs/notes.txt", "not a memory file"},
		{"logs/2026-11-20.md:22-14", "runs backwards"},
		{"logs/2026-11-20.md:0-0", "runs backwards"},
		{"logs/2026-11-20.md:99999999999999999999", "too large a number"},
		{"› Trip planning", "no file named"},
		{"``", "no file named"},
		// wrappers come in pairs
		{`"MEMORY.md`, "not a memory file"},
		{"[logs/2026-11-20.md:14-22", "not a memory file"},
		// after the colon, a range or nothing
		{"logs/2026-11-20.md:abc", "not a memory file"},
		{"logs/2026-11-20.md:3-", "not a memory file"},
		{"logs/2026-11-20.md:3-4-5", "not a memory file"},
		{"logs/2026-11-20.md:-3", "not a memory file"},
		{"2026-1-20", "not a memory file"},
	} {
		_, err := ParseCitation(tc.in)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ParseCitation(%q) = %v, want ErrInvalid saying %q", tc.in, err, tc.says)
		}
	}
}

// tenLines is a log whose line n reads "line n".
func tenLines() string {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadLineRanges(t *testing.T) {
	home := readWorkspace(t, map[string]string{"logs/2026-11-20.md": tenLines()})
	for _, tc := range []struct {
		name        string
		from, lines int
		start, end  int
	}{
		{"whole file", 0, 0, 1, 10},
		{"from 1", 1, 0, 1, 10},
		{"a range", 4, 3, 4, 6},
		{"one line", 7, 1, 7, 7},
		{"the last line", 10, 1, 10, 10},
		{"lines past the end stop at the end", 8, 50, 8, 10},
		{"negative counts from the end", -3, 0, 8, 10},
		{"-1 is the last line", -1, 0, 10, 10},
		{"negative with lines", -5, 2, 6, 7},
		{"negative beyond the start is the start", -50, 2, 1, 2},
	} {
		ex, err := Read(home, "logs/2026-11-20.md", tc.from, tc.lines)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if ex.StartLine != tc.start || ex.EndLine != tc.end || ex.TotalLines != 10 || ex.Cut || ex.Date != "2026-11-20" {
			t.Errorf("%s: got %d-%d of %d cut %v date %q, want %d-%d of 10", tc.name, ex.StartLine, ex.EndLine, ex.TotalLines, ex.Cut, ex.Date, tc.start, tc.end)
			continue
		}
		for i, l := range ex.Lines {
			if want := fmt.Sprintf("line %d", tc.start+i); l != want {
				t.Errorf("%s: line %d is %q, want %q", tc.name, tc.start+i, l, want)
			}
		}
	}
	for _, tc := range []struct {
		name        string
		from, lines int
		says        string
	}{
		{"from past the end", 11, 0, "from_line 11 is past the end: logs/2026-11-20.md has 10 lines"},
		{"far past the end", 1000, 5, "past the end"},
		{"negative lines", 1, -2, "lines must be 1 or more"},
	} {
		_, err := Read(home, "logs/2026-11-20.md", tc.from, tc.lines)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", tc.name, err, tc.says)
		}
	}
}

// Line numbers must match the chunker's, so a citation read back is the
// passage that was recalled: CRLF, a BOM and a missing final newline.
func TestReadNumbersLinesLikeTheChunker(t *testing.T) {
	body := "\xef\xbb\xbf# 2026-11-20\r\n\r\n## Trip planning\r\n\r\nFlights to Lisbon.\r\nHotel by the river."
	home := readWorkspace(t, map[string]string{"logs/2026-11-20.md": body})
	chunks, err := ChunkFile("logs/2026-11-20.md", []byte(body), ChunkOptions{})
	if err != nil || len(chunks) == 0 {
		t.Fatalf("chunks %v %v", chunks, err)
	}
	last := chunks[len(chunks)-1]
	ex, err := Read(home, "logs/2026-11-20.md", last.StartLine, last.EndLine-last.StartLine+1)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ex.Lines, "\n"); got != strings.ReplaceAll(last.Text, "\r", "") {
		t.Errorf("read %q, chunk %s:%d-%d is %q", got, last.Path, last.StartLine, last.EndLine, last.Text)
	}
	whole, _ := Read(home, "logs/2026-11-20.md", 0, 0)
	if whole.TotalLines != 6 || whole.Lines[0] != "# 2026-11-20" || whole.Lines[5] != "Hotel by the river." {
		t.Errorf("whole file %q (%d lines)", whole.Lines, whole.TotalLines)
	}
}

func TestReadCaps(t *testing.T) {
	var many strings.Builder
	for i := 1; i <= ReadMaxLines+50; i++ {
		fmt.Fprintf(&many, "%d\n", i)
	}
	wide := strings.Repeat("x", 100) + "\n"
	home := readWorkspace(t, map[string]string{
		"logs/many.md":  many.String(),
		"logs/wide.md":  strings.Repeat(wide, 200),
		"logs/long.md":  strings.Repeat("é", ReadMaxBytes) + "\nnext\n",
		"logs/empty.md": "",
	})

	ex, err := Read(home, "logs/many.md", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Cut || len(ex.Lines) != ReadMaxLines || ex.EndLine != ReadMaxLines || ex.TotalLines != ReadMaxLines+50 {
		t.Errorf("line cap: %d lines, %d-%d of %d, cut %v", len(ex.Lines), ex.StartLine, ex.EndLine, ex.TotalLines, ex.Cut)
	}
	// Reading on from the cut reaches the end, uncut.
	ex, err = Read(home, "logs/many.md", ex.EndLine+1, 0)
	if err != nil || ex.Cut || ex.StartLine != ReadMaxLines+1 || ex.EndLine != ReadMaxLines+50 {
		t.Errorf("read on: %d-%d cut %v err %v", ex.StartLine, ex.EndLine, ex.Cut, err)
	}
	// Exactly the lines asked for, as many as the cap: not a cut.
	ex, _ = Read(home, "logs/many.md", 1, ReadMaxLines)
	if ex.Cut || ex.EndLine != ReadMaxLines {
		t.Errorf("a full-cap range: %d-%d cut %v", ex.StartLine, ex.EndLine, ex.Cut)
	}

	ex, err = Read(home, "logs/wide.md", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, l := range ex.Lines {
		size += len(l) + 1
	}
	if !ex.Cut || size > ReadMaxBytes || size+len(wide) <= ReadMaxBytes || ex.EndLine != len(ex.Lines) {
		t.Errorf("byte cap: %d lines, %d bytes, cut %v", len(ex.Lines), size, ex.Cut)
	}

	ex, err = Read(home, "logs/long.md", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Clipped || !ex.Cut || len(ex.Lines) != 1 || len(ex.Lines[0]) >= ReadMaxBytes || !strings.HasSuffix(ex.Lines[0], "é") {
		t.Errorf("one long line: clipped %v cut %v, %d bytes", ex.Clipped, ex.Cut, len(ex.Lines[0]))
	}

	ex, err = Read(home, "logs/empty.md", 0, 0)
	if err != nil || ex.TotalLines != 0 || len(ex.Lines) != 0 || ex.Cut {
		t.Errorf("empty file: %+v %v", ex, err)
	}
}

func TestReadRefusals(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := readWorkspace(t, map[string]string{
		"MEMORY.md":          "# Memory\n",
		"SOUL.md":            "# Soul\n",
		"state.db":           "SQLite format 3\x00",
		"mcp.json":           `{"mcpServers": {}}`,
		"logs/2026-11-20.md": "# 2026-11-20\n",
		"logs/bin.md":        "a\x00b\n",
		"logs/latin1.md":     "caf\xe9\n",
		"notes/inside.md":    "organised elsewhere\n",
	})
	for link, target := range map[string]string{
		"logs/escape.md":   filepath.Join(outside, "secret.md"),
		"logs/relative.md": "../../" + filepath.Base(outside) + "/secret.md",
		"logs/outdir":      outside,
		"logs/soul.md":     "../SOUL.md",
		"logs/state.md":    "../state.db",
		"logs/mcp.md":      "../mcp.json",
		"logs/dir.md":      "../notes",
		"logs/inside.md":   "../notes/inside.md",
	} {
		if err := os.Symlink(target, filepath.Join(home, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ rel, says string }{
		{"logs/escape.md", "leads outside the workspace"},
		{"logs/relative.md", "leads outside the workspace"},
		{"logs/outdir/secret.md", "leads outside the workspace"},
		{"logs/soul.md", "is a link to SOUL.md"},
		{"logs/state.md", "is a link to state.db"},
		{"logs/mcp.md", "not a markdown memory file"},
		{"logs/dir.md", "is a directory"},
		{"logs/bin.md", "not UTF-8 text"},
		{"logs/latin1.md", "not UTF-8 text"},
		{"SOUL.md", "already in your context"},
		{"state.db", "is a database"},
		{"logs", "is a directory"},
		{"../MEMORY.md", "not a memory file"},
	} {
		_, err := Read(home, tc.rel, 0, 0)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Read(%s) = %v, want ErrInvalid saying %q", tc.rel, err, tc.says)
		}
	}
	if _, err := Read(home, "logs/2026-11-21.md", 0, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing log: %v, want ErrNotFound", err)
	}
	// A link that stays inside the workspace and ends at markdown is
	// followed, as the index follows it.
	if ex, err := Read(home, "logs/inside.md", 0, 0); err != nil || ex.Lines[0] != "organised elsewhere" {
		t.Errorf("an inside link: %+v %v", ex, err)
	}
}

func TestResolveDayInTheUsersZone(t *testing.T) {
	// 01:30 on Tuesday 24 November in Auckland (UTC+13) is still Monday 23
	// in UTC, and 20:00 on Monday 23 in Los Angeles (UTC-8) is already
	// Tuesday 24 in UTC: each day word must count from the user's date.
	auckland := time.FixedZone("NZDT", 13*3600)
	la := time.FixedZone("PST", -8*3600)
	tue := time.Date(2026, 11, 24, 1, 30, 0, 0, auckland)
	mon := time.Date(2026, 11, 23, 20, 0, 0, 0, la)
	if tue.UTC().Day() != 23 || mon.UTC().Day() != 24 {
		t.Fatal("the fixture does not straddle midnight UTC")
	}
	for _, tc := range []struct {
		now       time.Time
		day, want string
	}{
		{tue, "today", "2026-11-24"},
		{tue, "Today", "2026-11-24"},
		{tue, "yesterday", "2026-11-23"},
		{tue, "tuesday", "2026-11-24"},
		{tue, "last tuesday", "2026-11-17"},
		{tue, "monday", "2026-11-23"},
		{tue, "Mon", "2026-11-23"},
		{tue, "sunday", "2026-11-22"},
		{tue, "saturday", "2026-11-21"},
		{tue, "friday", "2026-11-20"},
		{tue, "thursday", "2026-11-19"},
		{tue, "thurs", "2026-11-19"},
		{tue, "wednesday", "2026-11-18"},
		{tue, "  last   Wednesday ", "2026-11-18"},
		{tue, "2026-11-02", "2026-11-02"},
		{mon, "today", "2026-11-23"},
		{mon, "yesterday", "2026-11-22"},
		{mon, "monday", "2026-11-23"},
		{mon, "last monday", "2026-11-16"},
		{mon, "tuesday", "2026-11-17"},
		{mon, "sun", "2026-11-22"},
		{mon, "saturday", "2026-11-21"},
		{mon, "friday", "2026-11-20"},
		{mon, "thursday", "2026-11-19"},
		{mon, "wednesday", "2026-11-18"},
		{mon, "tue", "2026-11-17"},
		// Across a month and a year.
		{time.Date(2027, 1, 1, 0, 5, 0, 0, auckland), "yesterday", "2026-12-31"},
		{time.Date(2027, 1, 1, 0, 5, 0, 0, auckland), "wednesday", "2026-12-30"},
	} {
		d, err := ResolveDay(tc.now, tc.day)
		if err != nil {
			t.Errorf("ResolveDay(%s, %q): %v", tc.now, tc.day, err)
			continue
		}
		if got := d.Format("2006-01-02"); got != tc.want {
			t.Errorf("ResolveDay(%s, %q) = %s, want %s", tc.now.Format("Mon 2006-01-02 15:04 MST"), tc.day, got, tc.want)
		}
		if LogPath(d) != "logs/"+tc.want+".md" {
			t.Errorf("LogPath = %s", LogPath(d))
		}
	}
	for _, bad := range []string{"", "tomorrow-ish", "2026-13-01", "2026-02-30", "next week", "last", "lastmonday"} {
		if _, err := ResolveDay(tue, bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "YYYY-MM-DD, today, yesterday") {
			t.Errorf("ResolveDay(%q) = %v, want ErrInvalid listing the forms", bad, err)
		}
	}
}

func TestNearestLogsAndFileDate(t *testing.T) {
	home := readWorkspace(t, map[string]string{
		"logs/2026-11-16.md": "x\n", "logs/2026-11-19.md": "x\n", "logs/2026-11-25.md": "x\n",
		"logs/notes.md": "x\n", "logs/2026-11-18.md.swp": "x\n",
	})
	for _, tc := range []struct{ date, before, after string }{
		{"2026-11-17", "2026-11-16", "2026-11-19"},
		{"2026-11-19", "2026-11-16", "2026-11-25"},
		{"2026-11-01", "", "2026-11-16"},
		{"2026-12-01", "2026-11-25", ""},
	} {
		if b, a := NearestLogs(home, tc.date); b != tc.before || a != tc.after {
			t.Errorf("NearestLogs(%s) = %q, %q; want %q, %q", tc.date, b, a, tc.before, tc.after)
		}
	}
	if b, a := NearestLogs(t.TempDir(), "2026-11-17"); b != "" || a != "" {
		t.Errorf("no logs/: %q %q", b, a)
	}
	for rel, want := range map[string]string{
		"logs/2026-11-20.md": "2026-11-20", "digests/2026-W47.md": "2026-W47", "digests/2026-11.md": "2026-11",
		"MEMORY.md": "", "logs/2026/trip.md": "",
	} {
		if got := FileDate(rel); got != want {
			t.Errorf("FileDate(%s) = %q, want %q", rel, got, want)
		}
	}
}
