package memory

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yuin/goldmark/ast"
)

// initialMemory is the MEMORY.md `agent init` writes.
const initialMemory = `# Memory

Durable, high-signal facts. Edit freely: this file is yours, and the index
picks up your changes.

## User Facts

## Preferences

## Decisions
`

func workspace(t *testing.T, memory string) string {
	t.Helper()
	home := t.TempDir()
	if memory != "" {
		if err := os.WriteFile(filepath.Join(home, "MEMORY.md"), []byte(memory), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkLanded asserts that lines Start..End of the file are exactly want.
func checkLanded(t *testing.T, home string, res AppendResult, want ...string) {
	t.Helper()
	lines := fileLines([]byte(readFile(t, filepath.Join(home, filepath.FromSlash(res.Path)))))
	if res.StartLine < 1 || res.EndLine > len(lines) || res.StartLine > res.EndLine {
		t.Fatalf("result %+v outside the file's %d lines", res, len(lines))
	}
	if got := lines[res.StartLine-1 : res.EndLine]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines %d-%d are %q, want %q", res.StartLine, res.EndLine, got, want)
	}
}

func TestAppendFact(t *testing.T) {
	tests := []struct {
		name, file, text, section string
		want                      string // the whole file afterwards
		start, end                int
	}{
		{
			name: "default section of a new workspace", file: initialMemory, text: "Likes green tea",
			want:  strings.Replace(initialMemory, "## User Facts\n", "## User Facts\n\n- Likes green tea\n", 1),
			start: 8, end: 8,
		},
		{
			name: "continues an existing list", file: "## User Facts\n\n- one\n- two\n\n## Later\n", text: "three",
			want:  "## User Facts\n\n- one\n- two\n- three\n\n## Later\n",
			start: 5, end: 5,
		},
		{
			name: "after a paragraph, with a blank line", file: "## User Facts\nSome prose.\n## Later\n", text: "fact",
			want:  "## User Facts\nSome prose.\n\n- fact\n\n## Later\n",
			start: 4, end: 4,
		},
		{
			name: "section matched ignoring case and blanks", file: initialMemory, text: "window seat", section: "  preferences ",
			want:  strings.Replace(initialMemory, "## Preferences\n", "## Preferences\n\n- window seat\n", 1),
			start: 10, end: 10,
		},
		{
			name: "last section is appended to", file: initialMemory, text: "Debian", section: "Decisions",
			want:  initialMemory + "\n- Debian\n",
			start: 12, end: 12,
		},
		{
			name: "missing section created at the end", file: "# M\n\n## A\n- a", text: "pen", section: "Allergies",
			want:  "# M\n\n## A\n- a\n\n## Allergies\n\n- pen\n",
			start: 8, end: 8,
		},
		{
			name: "missing file created", file: "", text: "hello",
			want:  "## User Facts\n\n- hello\n",
			start: 3, end: 3,
		},
		{
			name: "goes before subsections", file: "## Trips\n\nSee below.\n\n### Japan\n\n- flights\n", text: "passport valid to 2031", section: "Trips",
			want:  "## Trips\n\nSee below.\n\n- passport valid to 2031\n\n### Japan\n\n- flights\n",
			start: 5, end: 5,
		},
		{
			name: "headings in code and other levels do not match", section: "Notes",
			file: "# Notes\n\n```\n## Notes\n```\n\n### Notes\n\nx\n", text: "n",
			want:  "# Notes\n\n```\n## Notes\n```\n\n### Notes\n\nx\n\n## Notes\n\n- n\n",
			start: 13, end: 13,
		},
		{
			name: "setext section", file: "Facts\n-----\n\n- a\n\nMore\n====\n", text: "b", section: "Facts",
			want:  "Facts\n-----\n\n- a\n- b\n\nMore\n====\n",
			start: 5, end: 5,
		},
		{
			name: "multi-line text is one item, headings escaped",
			file: initialMemory, text: "\n  Trip: Japan\r\nflights booked\n\n# not a heading\n---\n   ", section: "",
			want: strings.Replace(initialMemory, "## User Facts\n",
				"## User Facts\n\n- Trip: Japan\n  flights booked\n\n  \\# not a heading\n  \\---\n", 1),
			start: 8, end: 12,
		},
		{
			name: "CRLF file gets CRLF lines", file: "## User Facts\r\n\r\n- a\r\n\r\n## B\r\n", text: "b",
			want:  "## User Facts\r\n\r\n- a\r\n- b\r\n\r\n## B\r\n",
			start: 4, end: 4,
		},
		{
			name: "front matter and BOM", file: "\ufeff---\nx: 1\n---\n## User Facts\n\n## B\n", text: "f",
			want:  "\ufeff---\nx: 1\n---\n## User Facts\n\n- f\n\n## B\n",
			start: 6, end: 6,
		},
		{
			name: "no blank line before the next heading: one is added", file: "## User Facts\n```\ncode\n```\nNext\n----\n", text: "f",
			want:  "## User Facts\n```\ncode\n```\n\n- f\n\nNext\n----\n",
			start: 6, end: 6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := workspace(t, tt.file)
			res, err := AppendFact(home, tt.text, tt.section)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(home, "MEMORY.md")); got != tt.want {
				t.Fatalf("MEMORY.md is\n%q\nwant\n%q", got, tt.want)
			}
			if res.Path != "MEMORY.md" || res.StartLine != tt.start || res.EndLine != tt.end {
				t.Fatalf("result %+v, want MEMORY.md %d-%d", res, tt.start, tt.end)
			}
		})
	}
}

// TestAppendFactKeepsEveryByte inserts into the middle of a hand-edited
// file full of things an editor or a person leaves behind, and checks that
// taking the new lines out gives back the original exactly.
func TestAppendFactKeepsEveryByte(t *testing.T) {
	orig := "# My memory  \n\n" +
		"Intro with trailing spaces   \n\t\n" +
		"## Preferences\n\n" +
		"* star bullets, not dashes\n" +
		"*   odd   spacing\n\n\n\n" +
		"## User Facts \n" +
		"<!-- a comment the user keeps -->\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
		"## Zeta\n" +
		"no trailing newline at the end"
	home := workspace(t, orig)
	res, err := AppendFact(home, "likes tea", "Preferences")
	if err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(home, "MEMORY.md"))
	checkLanded(t, home, res, "- likes tea")
	lines := strings.SplitAfter(got, "\n")
	without := strings.Join(append(lines[:res.StartLine-1:res.StartLine-1], lines[res.EndLine:]...), "")
	if without != orig {
		t.Fatalf("taking lines %d-%d out does not give the original back:\n%q\nwant\n%q", res.StartLine, res.EndLine, without, orig)
	}

	res, err = AppendFact(home, "born in Porto", "User Facts")
	if err != nil {
		t.Fatal(err)
	}
	checkLanded(t, home, res, "- born in Porto")
	got2 := readFile(t, filepath.Join(home, "MEMORY.md"))
	if !strings.Contains(got2, "| 1 | 2 |\n\n- born in Porto\n\n## Zeta\nno trailing newline at the end") {
		t.Fatalf("second fact landed wrongly:\n%s", got2)
	}
}

func TestAppendFactChunksUnderItsSection(t *testing.T) {
	home := workspace(t, initialMemory)
	res, err := AppendFact(home, "Prefers aisle seats", "Preferences")
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := ChunkFile("MEMORY.md", []byte(readFile(t, filepath.Join(home, "MEMORY.md"))), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if c.StartLine <= res.StartLine && res.EndLine <= c.EndLine {
			if c.Heading != "Memory › Preferences" {
				t.Fatalf("fact is in a chunk headed %q", c.Heading)
			}
			return
		}
	}
	t.Fatalf("no chunk holds lines %d-%d: %+v", res.StartLine, res.EndLine, chunks)
}

func TestAppendFactRefusesEmpty(t *testing.T) {
	home := workspace(t, initialMemory)
	for _, text := range []string{"", "   ", "\n\t\r\n"} {
		if _, err := AppendFact(home, text, ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("AppendFact(%q) error = %v, want ErrInvalid", text, err)
		}
	}
	if got := readFile(t, filepath.Join(home, "MEMORY.md")); got != initialMemory {
		t.Fatalf("a refused fact changed MEMORY.md:\n%s", got)
	}
}

func TestAppendFactKeepsSymlinkAndMode(t *testing.T) {
	home := workspace(t, "")
	// A link that stays inside the workspace is followed and kept.
	if err := os.Mkdir(filepath.Join(home, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(home, "notes", "real-memory.md")
	if err := os.WriteFile(real, []byte(initialMemory), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(real, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "MEMORY.md")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendFact(home, "x", "Preferences"); err != nil { // mid-file: a rewrite
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("MEMORY.md is no longer a symlink (%v)", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if !strings.Contains(readFile(t, real), "## Preferences\n\n- x\n") {
		t.Fatalf("the link's target was not updated:\n%s", readFile(t, real))
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(real), ".*tmp*")); len(leftovers) > 0 {
		t.Fatalf("temp files left behind: %v", leftovers)
	}
}

// A symlink leading outside the workspace is never written through: not
// MEMORY.md's own, not a logs/ directory's, not a broken one.
func TestAppendRefusesSymlinksLeadingOutside(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, link string
		dir        bool
		broken     bool
		write      func(home string) error
	}{
		{"memory file", "MEMORY.md", false, false, func(h string) error { _, err := AppendFact(h, "x", ""); return err }},
		{"broken memory link", "MEMORY.md", false, true, func(h string) error { _, err := AppendFact(h, "x", ""); return err }},
		{"logs dir", "logs", true, false, func(h string) error { _, err := AppendLog(h, at, "x"); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := workspace(t, "")
			outside := filepath.Join(t.TempDir(), "target")
			switch {
			case c.dir:
				if err := os.Mkdir(outside, 0o755); err != nil {
					t.Fatal(err)
				}
			case !c.broken:
				if err := os.WriteFile(outside, []byte(initialMemory), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.RemoveAll(filepath.Join(home, c.link))
			if err := os.Symlink(outside, filepath.Join(home, c.link)); err != nil {
				t.Fatal(err)
			}
			err := c.write(home)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if c.dir {
				if entries, _ := os.ReadDir(outside); len(entries) != 0 {
					t.Errorf("written outside: %v", entries)
				}
			} else if !c.broken && readFile(t, outside) != initialMemory {
				t.Error("the file outside changed")
			} else if _, err := os.Stat(outside); c.broken && err == nil {
				t.Error("a file was created outside through a broken link")
			}
		})
	}
}

func TestAppendLog(t *testing.T) {
	home := workspace(t, "")
	at := time.Date(2026, 11, 20, 14, 5, 0, 0, time.FixedZone("WET", 0))
	res, err := AppendLog(home, at, "Ran 7 km.\nKnee fine.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != "logs/2026-11-20.md" || res.StartLine != 3 || res.EndLine != 6 {
		t.Fatalf("first entry %+v, want logs/2026-11-20.md 3-6", res)
	}
	res, err = AppendLog(home, at.Add(25*time.Minute), "# not a heading\nsecond")
	if err != nil {
		t.Fatal(err)
	}
	checkLanded(t, home, res, "### 14:30", "", `\# not a heading`, "second")
	res, err = AppendLogEntry(home, at.Add(time.Hour), "15:05 · session\nkitchen", "**user:** hi\n\n**assistant:** hello")
	if err != nil {
		t.Fatal(err)
	}
	checkLanded(t, home, res, "### 15:05 · session kitchen", "", "**user:** hi", "", "**assistant:** hello")
	want := "# 2026-11-20\n\n" +
		"### 14:05\n\nRan 7 km.\nKnee fine.\n\n" +
		"### 14:30\n\n\\# not a heading\nsecond\n\n" +
		"### 15:05 · session kitchen\n\n**user:** hi\n\n**assistant:** hello\n"
	if got := readFile(t, filepath.Join(home, "logs", "2026-11-20.md")); got != want {
		t.Fatalf("log is\n%q\nwant\n%q", got, want)
	}
}

func TestAppendLogToUserFile(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"no trailing newline", "# 2026-11-20\n\n- by hand", "# 2026-11-20\n\n- by hand\n\n### 09:00\n\nnote\n"},
		{"trailing blank line kept single", "# 2026-11-20\n\nx\n\n", "# 2026-11-20\n\nx\n\n### 09:00\n\nnote\n"},
		{"CRLF", "# 2026-11-20\r\n\r\nx\r\n", "# 2026-11-20\r\n\r\nx\r\n\r\n### 09:00\r\n\r\nnote\r\n"},
		{"empty file gets the title", "", "# 2026-11-20\n\n### 09:00\n\nnote\n"},
		{"user's other title kept, none added", "# Friday\n", "# Friday\n\n### 09:00\n\nnote\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := workspace(t, "")
			path := filepath.Join(home, "logs", "2026-11-20.md")
			os.MkdirAll(filepath.Dir(path), 0o700)
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := AppendLog(home, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), "note")
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != tt.want {
				t.Fatalf("log is\n%q\nwant\n%q", got, tt.want)
			}
			checkLanded(t, home, res, "### 09:00", "", "note")
		})
	}
}

func TestAppendLogContainsRunawayBlocks(t *testing.T) {
	for _, body := range []string{"```go\n# code", "<!-- open comment\n## x", "<pre>\nraw"} {
		t.Run(body, func(t *testing.T) {
			home := workspace(t, "")
			at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
			if _, err := AppendLog(home, at, body); err != nil {
				t.Fatal(err)
			}
			res, err := AppendLog(home, at.Add(time.Minute), "after")
			if err != nil {
				t.Fatal(err)
			}
			data := []byte(readFile(t, filepath.Join(home, "logs", "2026-11-20.md")))
			if got := topHeadings(data); strings.Join(got, "|") != "2026-11-20|09:00|09:01" {
				t.Fatalf("top-level headings %q: the body swallowed the next entry:\n%s", got, data)
			}
			checkLanded(t, home, res, "### 09:01", "", "after")
		})
	}
}

func TestAppendLogRefusesEmpty(t *testing.T) {
	home := workspace(t, "")
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	if _, err := AppendLog(home, at, " \n "); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty note: error %v, want ErrInvalid", err)
	}
	if _, err := AppendLogEntry(home, at, "  ", "body"); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty heading: error %v, want ErrInvalid", err)
	}
	if _, err := os.Stat(filepath.Join(home, "logs", "2026-11-20.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused note created the log (%v)", err)
	}
}

func TestAppendMissingHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "nope")
	if _, err := AppendFact(home, "x", ""); err == nil || !strings.Contains(err.Error(), home) {
		t.Errorf("AppendFact in a missing home: %v, want an error naming it", err)
	}
	if _, err := AppendLog(home, time.Now(), "x"); err == nil || !strings.Contains(err.Error(), "logs/") {
		t.Errorf("AppendLog in a missing home: %v, want an error naming the log", err)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed append created the home (%v)", err)
	}
}

// topHeadings lists the text of the document's top-level headings.
func topHeadings(data []byte) []string {
	c := newChunker(data)
	var out []string
	for n := c.parse().FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			out = append(out, c.headingText(h))
		}
	}
	return out
}

// FuzzAppendContained: whatever the user types, a fact stays inside its
// list item and a log note inside its entry: the file's top-level headings
// are the same before and after, plus the entry's own.
func FuzzAppendContained(f *testing.F) {
	for _, s := range []string{"tea", "# h\n---\n===", "```\n## x", "<!--\n## x", "<pre>\n# x", "a\n    # code", "- a\n\t# b", "> q\n## x", "\\\n#", "x\n \t==="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || !isUTF8(s) {
			return
		}
		home := workspace(t, initialMemory)
		if _, err := AppendFact(home, s, "Preferences"); err != nil {
			if errors.Is(err, ErrInvalid) {
				return
			}
			t.Fatal(err)
		}
		if got := topHeadings([]byte(readFile(t, filepath.Join(home, "MEMORY.md")))); strings.Join(got, "|") != "Memory|User Facts|Preferences|Decisions" {
			t.Fatalf("fact %q changed the sections: %q", s, got)
		}
		at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
		if _, err := AppendLog(home, at, s); err != nil {
			t.Fatal(err)
		}
		if _, err := AppendLog(home, at.Add(time.Minute), "next"); err != nil {
			t.Fatal(err)
		}
		log := []byte(readFile(t, filepath.Join(home, "logs", "2026-11-20.md")))
		if got := topHeadings(log); strings.Join(got, "|") != "2026-11-20|09:00|09:01" {
			t.Fatalf("note %q broke the log's entries: %q\n%s", s, got, log)
		}
	})
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// Concurrency: goroutines and processes append at once; afterwards every
// line is present exactly once and whole. Facts go to a section that is not
// last, so every one of them is a locked read-modify-rename.

const helperEnv = "MEMORY_APPEND_HELPER"

// TestMain doubles as the child process of TestAppendConcurrentProcesses:
// with helperEnv set to "home\tid\tM" it appends M facts and M notes tagged
// with id, then exits.
func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		f := strings.Split(spec, "\t")
		n, err := strconv.Atoi(f[2])
		if err == nil {
			err = appendMany(f[0], f[1], n)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func appendMany(home, id string, m int) error {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i := 0; i < m; i++ {
		if _, err := AppendFact(home, fmt.Sprintf("fact %s-%d", id, i), "User Facts"); err != nil {
			return err
		}
		if _, err := AppendLog(home, at, fmt.Sprintf("note %s-%d", id, i)); err != nil {
			return err
		}
	}
	return nil
}

func checkAllOnce(t *testing.T, home string, ids []string, m int) {
	t.Helper()
	mem := readFile(t, filepath.Join(home, "MEMORY.md"))
	log := readFile(t, filepath.Join(home, "logs", "2026-11-20.md"))
	for _, id := range ids {
		for i := 0; i < m; i++ {
			for _, w := range []struct{ file, line string }{
				{mem, fmt.Sprintf("\n- fact %s-%d\n", id, i)},
				{log, fmt.Sprintf("\nnote %s-%d\n", id, i)},
			} {
				if n := strings.Count(w.file, w.line); n != 1 {
					t.Fatalf("%q appears %d times", strings.TrimSpace(w.line), n)
				}
			}
		}
	}
	if n := strings.Count(log, "# 2026-11-20\n"); n != 1 {
		t.Fatalf("the log's title appears %d times", n)
	}
	if !strings.HasPrefix(mem, strings.SplitAfter(initialMemory, "## User Facts\n")[0]) ||
		!strings.HasSuffix(mem, "\n## Preferences\n\n## Decisions\n") {
		t.Fatalf("the user's text around the facts changed:\n%s", mem)
	}
	if got := topHeadings([]byte(log)); len(got) != 1+len(ids)*m {
		t.Fatalf("log has %d top-level headings, want %d", len(got), 1+len(ids)*m)
	}
}

func TestAppendConcurrentGoroutines(t *testing.T) {
	home := workspace(t, initialMemory)
	const n, m = 8, 20
	var ids []string
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		id := "g" + strconv.Itoa(g)
		ids = append(ids, id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- appendMany(home, id, m)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkAllOnce(t, home, ids, m)
}

func TestAppendConcurrentProcesses(t *testing.T) {
	home := workspace(t, initialMemory)
	const n, m = 6, 15
	var ids []string
	var cmds []*exec.Cmd
	for p := 0; p < n; p++ {
		id := "p" + strconv.Itoa(p)
		ids = append(ids, id)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s\t%s\t%d", helperEnv, home, id, m))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	failed := false
	for _, cmd := range cmds { // wait for all before judging, so none outlives the test
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper process: %v", err)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
	checkAllOnce(t, home, ids, m)
}

// A rewrite whose temp file cannot be written whole (here: the file-size
// limit, as a full disk would) fails, and MEMORY.md keeps every byte.
func TestAppendFactFailedWriteLeavesMemoryWhole(t *testing.T) {
	big := strings.Replace(initialMemory, "## Preferences", strings.Repeat("- filler fact\n", 4000)+"\n## Preferences", 1)
	home := workspace(t, big)
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	lim := syscall.Rlimit{Cur: uint64(len(big) / 2), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	_, err := AppendFact(home, "one more", "User Facts") // not the last section: a rewrite
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("a rewrite that could not be written reported success")
	}
	if got := readFile(t, filepath.Join(home, "MEMORY.md")); got != big {
		t.Fatalf("MEMORY.md changed by a failed rewrite (%d bytes, want %d)", len(got), len(big))
	}
}

// An editor that saves MEMORY.md between our read and our rename (it does
// not take our lock) loses nothing: the rewrite notices, starts over from the
// editor's file, and the fact lands in it. beforeRename saves at exactly that
// moment, on the first attempt only.
func TestAppendFactRetriesAfterAnEditorsSave(t *testing.T) {
	home := workspace(t, initialMemory)
	edited := strings.Replace(initialMemory, "## Decisions\n", "## Decisions\n\n- Edited in vim while the agent wrote.\n", 1)
	attempts := 0
	beforeRename := func(path string) {
		if attempts++; attempts == 1 {
			if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
				t.Error(err)
			}
		}
	}
	res, err := appendFact(home, "Likes green tea.", "User Facts", beforeRename) // not the last section: a rewrite
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Errorf("%d attempts, want the editor's save to cost exactly one retry", attempts)
	}
	want := strings.Replace(edited, "## User Facts\n", "## User Facts\n\n- Likes green tea.\n", 1)
	if got := readFile(t, filepath.Join(home, "MEMORY.md")); got != want {
		t.Fatalf("MEMORY.md =\n%s\nwant the editor's save and the fact:\n%s", got, want)
	}
	checkLanded(t, home, res, "- Likes green tea.")
}

// An editor's save of the same size within the same tick of the file clock
// (size and mtime both unchanged) is noticed too: the check compares bytes.
func TestAppendFactNoticesASameSizeSameMtimeSave(t *testing.T) {
	home := workspace(t, initialMemory)
	edited := strings.Replace(initialMemory, "## Decisions", "## DECISIONS", 1)
	if len(edited) != len(initialMemory) || edited == initialMemory {
		t.Fatal("the edit must keep the size and change the bytes")
	}
	attempts := 0
	beforeRename := func(path string) {
		if attempts++; attempts == 1 {
			fi, err := os.Stat(path)
			if err != nil {
				t.Error(err)
				return
			}
			if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
				t.Error(err)
			}
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := appendFact(home, "Likes green tea.", "User Facts", beforeRename); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Errorf("%d attempts, want the same-size save to cost one retry", attempts)
	}
	got := readFile(t, filepath.Join(home, "MEMORY.md"))
	if !strings.Contains(got, "## DECISIONS") || !strings.Contains(got, "- Likes green tea.") {
		t.Fatalf("MEMORY.md =\n%s\nwant the editor's save and the fact", got)
	}
}

// An editor that keeps saving wins: after a few attempts the rewrite gives
// up with an error, and MEMORY.md is the editor's last save.
func TestAppendFactGivesUpToABusyEditor(t *testing.T) {
	home := workspace(t, initialMemory)
	attempts := 0
	var last string
	beforeRename := func(path string) {
		attempts++
		last = strings.Replace(initialMemory, "## Decisions\n", "## Decisions\n\n- Save"+strings.Repeat("!", attempts)+"\n", 1)
		if err := os.WriteFile(path, []byte(last), 0o600); err != nil {
			t.Error(err)
		}
	}
	_, err := appendFact(home, "Likes green tea.", "User Facts", beforeRename)
	if !errors.Is(err, errChanged) {
		t.Fatalf("err = %v, want errChanged", err)
	}
	if attempts != 4 {
		t.Errorf("%d attempts, want 4", attempts)
	}
	if got := readFile(t, filepath.Join(home, "MEMORY.md")); got != last {
		t.Fatalf("MEMORY.md =\n%s\nwant the editor's last save:\n%s", got, last)
	}
}

// threadWrites is how many write(2) calls the calling thread has made and
// how many bytes they wrote, as the kernel counts them (task I/O
// accounting). The caller must be locked to its thread.
func threadWrites(t *testing.T) (calls, bytes int64) {
	t.Helper()
	b, err := os.ReadFile("/proc/thread-self/io")
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string) int64 {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, name+": "); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatalf("no %s in /proc/thread-self/io:\n%s", name, b)
		return 0
	}
	return field("syscw"), field("wchar")
}

// runtimeWakeups is how many of extra write calls were the Go runtime's own
// 8-byte eventfd writes (netpollBreak: waking the network poller when a
// timer moves, which under load can happen on any thread, the locked one
// too), judged by the bytes: each extra call must have written exactly 8
// bytes beyond what the append itself wrote. An append split into two
// writes to its file adds a call but no bytes, so it is never excused.
func runtimeWakeups(extraCalls, extraBytes int64) int64 {
	if extraCalls > 0 && extraBytes == 8*extraCalls {
		return extraCalls
	}
	return 0
}

// An append is one write(2) to its file, so a reader of the file (the
// index, an editor, tail -f) never meets half an entry written and half
// not. An append that spans a page boundary, which a kill -9 could still
// cut between pages, is first saved whole in the pending-append record (one more write,
// to .memory.journal) so the next writer can finish it. The kernel's own
// count of this thread's write calls says how many each append made. (A
// reader racing the write is not what is asserted: Linux extends a file's
// size page by page during one write, so even a single write can be seen
// in part.)
func TestAppendIsOneWrite(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	home := workspace(t, initialMemory)
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("a line of a long note, longer than a page in all\n", 200)
	if unlock, err := lock(home); err == nil { // the lock file, made once, is not an append's
		unlock()
	}
	for _, c := range []struct {
		name   string
		append func() error
	}{
		{"new log", func() error { _, err := AppendLog(home, at, "first note\nof the day"); return err }},
		{"log entry", func() error { _, err := AppendLog(home, at.Add(time.Minute), "second note"); return err }},
		{"long log entry", func() error { _, err := AppendLog(home, at.Add(2*time.Minute), long); return err }},
		{"session entry", func() error {
			_, err := AppendLogEntry(home, at.Add(3*time.Minute), "09:03 · session work", "**user:** hi\n\n**assistant:** hello")
			return err
		}},
		{"fact in the last section", func() error { _, err := AppendFact(home, "Decided on the blue tiles.", "Decisions"); return err }},
		{"fact in a new section", func() error { _, err := AppendFact(home, "Project Atlas.", "Projects"); return err }},
	} {
		sizes := func() (total int64) {
			for _, f := range []string{"MEMORY.md", "logs/2026-11-20.md"} {
				if fi, err := os.Stat(filepath.Join(home, f)); err == nil {
					total += fi.Size()
				}
			}
			return total
		}
		logSize := func() int64 {
			fi, err := os.Stat(filepath.Join(home, "logs/2026-11-20.md"))
			if err != nil {
				return 0
			}
			return fi.Size()
		}
		sizeBefore, logBefore := sizes(), logSize()
		callsBefore, bytesBefore := threadWrites(t)
		if err := c.append(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		callsAfter, bytesAfter := threadWrites(t)
		n, written := callsAfter-callsBefore, bytesAfter-bytesBefore
		// Only log appends can be long here; a fact is a line.
		page := int64(os.Getpagesize())
		grew := logSize() - logBefore
		want := int64(1)
		if grew > 0 && logBefore%page+grew > page {
			want = 2 // the record, then the append
		}
		appended := sizes() - sizeBefore
		expected := appended // the bytes the append itself must write
		if want == 2 {       // and the record: path, offset, the entry
			expected += int64(len("logs/2026-11-20.md\n"+strconv.FormatInt(logBefore, 10)+"\n")) + grew
		}
		n -= runtimeWakeups(n-want, written-expected)
		if n != want {
			t.Errorf("%s: %d write calls (%d bytes written, %d appended), want %d", c.name, n, written, appended, want)
		}
		if _, err := os.Stat(filepath.Join(home, PendingAppendFile)); !os.IsNotExist(err) {
			t.Errorf("%s: the pending-append record is left behind: %v", c.name, err)
		}
	}
}

// ReplaceMemory (a user's revert) writes the whole file: over an existing
// MEMORY.md atomically, and a missing one is created.
func TestReplaceMemory(t *testing.T) {
	home := workspace(t, initialMemory)
	path := filepath.Join(home, "MEMORY.md")
	if err := ReplaceMemory(home, []byte("# Memory\n\n- Reverted.\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "# Memory\n\n- Reverted.\n" {
		t.Fatalf("replaced MEMORY.md = %q", got)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceMemory(home, []byte("# Memory\n\n- Restored.\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "# Memory\n\n- Restored.\n" {
		t.Fatalf("recreated MEMORY.md = %q", got)
	}
}

// A section name is one heading's text: a line break, a '#' or another
// control character in it (the model chooses it) is refused and MEMORY.md
// is left as it was.
func TestAppendFactRefusesBadSections(t *testing.T) {
	home := workspace(t, initialMemory)
	for _, sec := range []string{"Facts\n## Injected", "Facts\r\nx", "# Top", "C# notes", "Facts ##", "Facts\x1b[2J", "Facts\u2028x"} {
		if _, err := AppendFact(home, "a fact", sec); !errors.Is(err, ErrInvalid) {
			t.Errorf("AppendFact(section %q) error = %v, want ErrInvalid", sec, err)
		}
	}
	if got := readFile(t, filepath.Join(home, "MEMORY.md")); got != initialMemory {
		t.Fatalf("a refused section changed MEMORY.md:\n%s", got)
	}
	if _, err := AppendFact(home, "a fact", "  Travel   plans "); err != nil {
		t.Fatalf("an ordinary section with extra blanks: %v", err)
	}
}

// A secret in a fact or a log note never reaches the file: its value is
// replaced by a marker naming the kind, and the result says which kinds.
func TestAppendRedactsSecrets(t *testing.T) {
	home := workspace(t, initialMemory)
	const tok = "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"
	r, err := AppendFact(home, "GitHub token for the backup script: "+tok, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Secrets) != 1 || r.Secrets[0] != "github token" {
		t.Errorf("AppendFact secrets %q", r.Secrets)
	}
	got := readFile(t, filepath.Join(home, "MEMORY.md"))
	if strings.Contains(got, tok) || !strings.Contains(got, "- GitHub token for the backup script: [secret: github token]\n") {
		t.Errorf("MEMORY.md:\n%s", got)
	}
	// The section a model chooses becomes a heading: no secret there either.
	r, err = AppendFact(home, "the backup runs nightly", "Backup "+tok)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(home, "MEMORY.md")); strings.Contains(got, tok) || !strings.Contains(got, "## Backup [secret: github token]\n") || len(r.Secrets) != 1 {
		t.Errorf("a secret in the section: %q\n%s", r.Secrets, got)
	}
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	r, err = AppendLogEntry(home, at, "09:30 · session s", "**User:** db password=hunter2 and key AKIAIOSFODNN7EXAMPLE\n\n**Atlas:** noted")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Secrets, ",") != "password,aws access key" {
		t.Errorf("AppendLogEntry secrets %q", r.Secrets)
	}
	log := readFile(t, filepath.Join(home, "logs", "2026-11-20.md"))
	if strings.Contains(log, "hunter2") || strings.Contains(log, "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(log, "password=[secret: password] and key [secret: aws access key]") {
		t.Errorf("log:\n%s", log)
	}
}
