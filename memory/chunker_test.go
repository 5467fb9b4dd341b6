package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenTarget is the size the index ships with: the golden files show the
// chunks a user's files are really cut into.
const goldenTarget = DefaultTargetChars

type goldenChunk struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Heading   string `json:"heading"`
	Date      string `json:"date"`
	Text      string `json:"text"`
	By        string `json:"by,omitempty"`
}

// relFor names a test file as it would sit in a workspace: dated files are
// daily logs.
func relFor(name string) string {
	if LogDate("logs/"+name) != "" {
		return "logs/" + name
	}
	return name
}

func TestChunkFileGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/chunks/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := ChunkFile(relFor(name), data, ChunkOptions{TargetChars: goldenTarget})
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, data, chunks)
			got := make([]goldenChunk, len(chunks))
			for i, c := range chunks {
				got[i] = goldenChunk(c)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // keep "> quote" lines readable in review
			enc.SetIndent("", "  ")
			if err := enc.Encode(got); err != nil {
				t.Fatal(err)
			}
			js := buf.Bytes()
			golden := strings.TrimSuffix(f, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, js, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run: go test ./memory -update)", err)
			}
			if !bytes.Equal(js, want) {
				t.Errorf("chunks of %s differ from %s (run go test ./memory -update and review the diff)\ngot:\n%s", f, golden, js)
			}
		})
	}
}

// fileLines splits data the way ChunkFile counts lines: at "\n", a final
// "\n" opening no extra line, a "\r" before the line end and a leading BOM
// not part of any line. Written independently of lineStarts on purpose.
func fileLines(data []byte) []string {
	s := strings.TrimPrefix(string(data), "\ufeff")
	if s == "" && len(data) == 0 {
		return nil
	}
	lines := strings.Split(s, "\n")
	if strings.HasSuffix(s, "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// checkChunks asserts what every chunking must satisfy: ranges inside the
// file, in order and disjoint, and Text equal to exactly those lines.
func checkChunks(t *testing.T, data []byte, chunks []Chunk) {
	t.Helper()
	lines := fileLines(data)
	prevEnd := 0
	for i, c := range chunks {
		if c.StartLine < 1 || c.StartLine > c.EndLine || c.EndLine > len(lines) {
			t.Fatalf("chunk %d: lines %d-%d outside 1-%d", i, c.StartLine, c.EndLine, len(lines))
		}
		if c.StartLine <= prevEnd {
			t.Fatalf("chunk %d: starts at %d, before the previous chunk ended (%d)", i, c.StartLine, prevEnd)
		}
		prevEnd = c.EndLine
		if want := strings.Join(lines[c.StartLine-1:c.EndLine], "\n"); c.Text != want {
			t.Fatalf("chunk %d (%d-%d): Text\n%q\nis not the file's lines\n%q", i, c.StartLine, c.EndLine, c.Text, want)
		}
		if strings.TrimFunc(c.Text, func(r rune) bool { return r == '>' || unicode.IsSpace(r) }) == "" {
			t.Fatalf("chunk %d (%d-%d) is blank", i, c.StartLine, c.EndLine)
		}
	}
}

func TestChunkFileCases(t *testing.T) {
	type want struct {
		start, end int
		heading    string
	}
	tests := []struct {
		name, rel, src string
		target         int
		want           []want
	}{
		{"empty file", "MEMORY.md", "", 0, nil},
		{"blank lines only", "MEMORY.md", "\n\n  \n", 0, nil},
		{"no trailing newline", "a.md", "# A\n\ntext", 0, []want{{1, 3, "A"}}},
		{"heading path and reset", "a.md", "# T\n## A\n### B\nb\n## C\nc\n", 0,
			[]want{{3, 4, "T › A › B"}, {5, 6, "T › C"}}},
		{"skipped level", "a.md", "# T\n### Deep\nx\n", 0, []want{{2, 3, "T › Deep"}}},
		{"hash in fenced code is not a heading", "a.md", "# A\n```\n# not\n```\n", 0, []want{{1, 4, "A"}}},
		{"empty section yields nothing", "a.md", "## A\n\n## B\nb\n", 0, []want{{3, 4, "B"}}},
		{"log title left out of heading", "logs/2026-11-20.md", "# 2026-11-20\n\n### 14:05\nran\n", 0, []want{{3, 4, "14:05"}}},
		{"other h1 in a log is kept", "logs/2026-11-20.md", "# Trip\n\nx\n", 0, []want{{1, 3, "Trip"}}},
		{"crlf", "a.md", "# A\r\n\r\nx\r\ny\r\n", 0, []want{{1, 4, "A"}}},
		{"setext spans its underline", "a.md", "Two\nlines\n---\nbody\n", 0, []want{{1, 4, "Two lines"}}},
		{"front matter excluded", "a.md", "---\na: 1\n---\n\nbody\n", 0, []want{{5, 5, "a"}}}, // cited by the file's name
		{"front matter with a title is a chunk", "a.md", "---\ntitle: Plans\ntags: [x]\n---\n\nbody\n", 0, []want{{1, 4, "Plans"}, {6, 6, "Plans"}}},
		{"a log's preamble has no title", "logs/2026-11-20.md", "ran\n", 0, []want{{1, 1, ""}}},
		{"only front matter", "a.md", "---\na: 1\n---\n", 0, nil},
		{"split between paragraphs", "a.md", "# A\n\naaaa\n\nbbbb\n\ncccc\n", 8,
			[]want{{1, 3, "A"}, {5, 5, "A"}, {7, 7, "A"}}},
		{"code block kept whole", "a.md", "# A\n\n```\n1\n2\n3\n4\n5\n```\n\nafter\n", 8,
			[]want{{1, 9, "A"}, {11, 11, "A"}}},
		{"long list split between items", "a.md", "- one one\n- two two\n- three three\n", 12,
			[]want{{1, 1, "a"}, {2, 2, "a"}, {3, 3, "a"}}},
		{"quote split keeps its markers", "a.md", ">\n> aaaa\n>\n> bbbb\n", 8,
			[]want{{2, 2, "a"}, {4, 4, "a"}}},
		{"thematic break alone is no chunk", "a.md", "# A\n\n---\n", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := ChunkFile(tt.rel, []byte(tt.src), ChunkOptions{TargetChars: tt.target})
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, []byte(tt.src), chunks)
			var got []want
			for _, c := range chunks {
				got = append(got, want{c.StartLine, c.EndLine, c.Heading})
				if c.Path != tt.rel || c.Date != LogDate(tt.rel) {
					t.Errorf("chunk path/date = %q/%q, want %q/%q", c.Path, c.Date, tt.rel, LogDate(tt.rel))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestChunkFileCRLFText(t *testing.T) {
	chunks, err := ChunkFile("a.md", []byte("# A\r\nx\r\ny\r\n"), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || chunks[0].Text != "# A\nx\ny" {
		t.Fatalf("got %+v, want one chunk with Text %q", chunks, "# A\nx\ny")
	}
}

func TestChunkFileBOM(t *testing.T) {
	chunks, err := ChunkFile("a.md", []byte("\ufeff# A\nx\n"), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || chunks[0].Heading != "A" || chunks[0].Text != "# A\nx" {
		t.Fatalf("got %+v, want heading A and Text without the BOM", chunks)
	}
}

func TestChunkFileRejectsBinary(t *testing.T) {
	for name, src := range map[string]string{
		"invalid utf-8": "# A\n\xff\xfe\n",
		"nul byte":      "# A\nx\x00y\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ChunkFile("MEMORY.md", []byte(src), ChunkOptions{})
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), "MEMORY.md") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLogDate(t *testing.T) {
	for rel, want := range map[string]string{
		"logs/2026-11-20.md":     "2026-11-20",
		"logs/2026-11-20.txt":    "",
		"logs/notes.md":          "",
		"2026-11-20.md":          "",
		"logs/sub/2026-11-20.md": "",
		"logs/2026-1a-20.md":     "",
		"logs/2026_11_20.md":     "",
		"MEMORY.md":              "",
	} {
		if got := LogDate(rel); got != want {
			t.Errorf("LogDate(%q) = %q, want %q", rel, got, want)
		}
	}
}

// TestChunkFileConcurrent shares the one parser between goroutines; under
// -race it fails if goldmark keeps any per-parse state in the parser.
func TestChunkFileConcurrent(t *testing.T) {
	files, _ := filepath.Glob("testdata/chunks/*.md")
	var inputs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	want := make([][]Chunk, len(inputs))
	for i, in := range inputs {
		want[i], _ = ChunkFile("a.md", in, ChunkOptions{})
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(inputs))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, in := range inputs {
				got, err := ChunkFile("a.md", in, ChunkOptions{})
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want[i]) {
					errs <- fmt.Sprintf("input %d: concurrent result differs (err %v)", i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// FuzzChunkFile: whatever the bytes, ChunkFile never panics, and every
// chunk it returns lies inside the file with Text equal to its lines.
func FuzzChunkFile(f *testing.F) {
	files, _ := filepath.Glob("testdata/chunks/*.md")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, 0)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, target int) {
		target %= 4096
		chunks, err := ChunkFile("logs/2026-11-20.md", data, ChunkOptions{TargetChars: target})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		checkChunks(t, data, chunks)
	})
}

// benchFile builds a realistic daily log of about n bytes: timestamped
// entries with prose, lists, a code block now and then, and links.
func benchFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# 2026-11-20\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "### %02d:%02d — session s%d\n\n", i/60%24, i%60, i)
		b.WriteString("Talked about the *Tagus footbridge* review and the [wind-tunnel report](https://example.org/r/")
		fmt.Fprintf(&b, "%d). Priya will send numbers by Thursday; Tomás wants to book the Porto train.\n", i)
		b.WriteString("The deflection at midspan was 11.2 mm against 12.5 mm predicted, within tolerance.\n\n")
		switch i % 4 {
		case 0:
			b.WriteString("- bridge deck review moved\n- call the insurance, ref 2026-LX-4471\n- `restic` backup verified\n\n")
		case 1:
			b.WriteString("```sh\n# not a heading\nrestic -r /mnt/backup snapshots\n```\n\n")
		case 2:
			b.WriteString("> She writes that the pears were good this year\n> and the figs were late.\n\n")
		}
	}
	return b.Bytes()
}

// BenchmarkChunkFile reports chunking throughput in MB/s on a 2 KB file
// (the size of an average note in the benchmark workspace) and a 64 KB one.
func BenchmarkChunkFile(b *testing.B) {
	for _, size := range []int{2 << 10, 64 << 10} {
		data := benchFile(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ChunkFile("logs/2026-11-20.md", data, ChunkOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
