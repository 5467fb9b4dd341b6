package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileFilesNeverStopAReindex puts every kind of bad file issue 5 lists
// into one workspace: each is skipped with a warning naming it, or indexed
// if it is merely odd, and the good file is always found.
func TestHostileFilesNeverStopAReindex(t *testing.T) {
	var nested strings.Builder
	for i := 0; i < 400; i++ {
		nested.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	for i := 1; i < 400; i++ {
		nested.WriteString(strings.Repeat("> ", i) + "quoted\n")
	}
	home := workspace(t, map[string]string{
		"logs/2026-01-01.md": "# 2026-01-01\n\n## Good\n\nthe zebra file is fine\n",
		"logs/2026-01-02.md": "\ufeff# 2026-01-02\r\n\r\n## Windows\r\n\r\nwritten with crlf and a bom\r\n",
		"logs/2026-01-03.md": nested.String() + "\n## Deep\n\nnested deeply yet searchable\n",
		"logs/2026-01-04.md": "# bad \xff\xfe utf8\n",
		"logs/2026-01-05.md": "# binary\x00\x01\x02\n",
	})
	// A 50 MB log: over the size cap, skipped without being read.
	line := "## huge\n\nhuge log line that repeats and repeats\n"
	write(t, home, "logs/2026-01-06.md", strings.Repeat(line, (50<<20)/len(line)+1))
	outside := filepath.Join(t.TempDir(), "secret.md")
	write(t, filepath.Dir(outside), "secret.md", "# secret\n\nthe outside secret\n")
	must(t, os.Symlink(outside, filepath.Join(home, "logs", "2026-01-07.md")))
	must(t, os.Symlink("..", filepath.Join(home, "logs", "up")))               // a loop through the workspace
	must(t, os.Symlink("loop-b.md", filepath.Join(home, "logs", "loop-a.md"))) // a symlink loop
	must(t, os.Symlink("loop-a.md", filepath.Join(home, "logs", "loop-b.md")))

	ix, w := open(t, home)
	st := reindex(t, ix, false)
	msgs := strings.Join(w.take(), "\n")
	for _, want := range []string{
		"skip logs/2026-01-04.md: not valid UTF-8",
		"skip logs/2026-01-05.md: binary content (NUL bytes)",
		"skip logs/2026-01-06.md: larger than 8 MiB",
		"skip logs/2026-01-07.md: symlink leading outside the workspace",
		"logs/loop-a.md",
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("no warning %q in:\n%s", want, msgs)
		}
	}
	for q, want := range map[string]string{
		"zebra":    "logs/2026-01-01.md",
		"crlf bom": "logs/2026-01-02.md",
		"deeply":   "logs/2026-01-03.md",
		"huge":     "",
		"secret":   "",
		"windows":  "logs/2026-01-02.md",
	} {
		got := paths(search(t, ix, q, SearchOptions{}))
		if want == "" && len(got) != 0 || want != "" && (len(got) == 0 || got[0] != want) {
			t.Errorf("search %q = %v, want %q", q, got, want)
		}
	}
	if st.Skipped == 0 {
		t.Errorf("stats report nothing skipped: %+v", st)
	}
	// Every chunk's lines lie inside its file.
	for _, h := range search(t, ix, "level OR quoted OR deeply", SearchOptions{Raw: true, K: 50}) {
		data, _ := os.ReadFile(filepath.Join(home, h.Path))
		if n := strings.Count(string(data), "\n") + 1; h.StartLine < 1 || h.EndLine > n || h.StartLine > h.EndLine {
			t.Errorf("%s:%d-%d outside a %d-line file", h.Path, h.StartLine, h.EndLine, n)
		}
	}
}

// A file that disappears between the walk and its read is a warning; the
// rest of the update lands, and the next update forgets the file.
func TestFileDeletedMidReindex(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-02-01.md": "# a\n\nalpha stays\n",
		"logs/2026-02-02.md": "# b\n\nbravo goes\n",
	})
	ix, w := open(t, home)
	ctx := context.Background()
	if err := ix.current(ctx); err != nil {
		t.Fatal(err)
	}
	reindex(t, ix, false) // builds index.db
	write(t, home, "logs/2026-02-03.md", "# c\n\ncharlie arrives\n")
	write(t, home, "logs/2026-02-04.md", "# d\n\ndelta vanishes\n")
	ents, sum, err := walk(home)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.Remove(filepath.Join(home, "logs", "2026-02-04.md"))) // after the walk, before the read
	w.take()
	st, err := ix.incremental(ctx, ents, sum, nil)
	if err != nil {
		t.Fatalf("a vanished file failed the update: %v", err)
	}
	if msgs := strings.Join(w.take(), "\n"); !strings.Contains(msgs, "skip logs/2026-02-04.md") {
		t.Errorf("no warning naming the vanished file: %q", msgs)
	}
	if st.Skipped != 1 || len(search(t, ix, "charlie", SearchOptions{})) != 1 {
		t.Errorf("the rest did not land: %+v", st)
	}
	if got := search(t, ix, "delta", SearchOptions{}); len(got) != 0 {
		t.Errorf("vanished file found: %v", paths(got))
	}
}
