package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// onePlace is the name of a conversation's file placed once: a second copy
// would carry a suffix after the id.
var onePlace = regexp.MustCompile(`-conv\d{4}\.md$`)

// TestCrashImport kills `agent import chatgpt` with SIGKILL at random
// moments, placement included (issue 33, item 8). After every kill the next
// `import list` finishes or discards the import, and then: no staging
// folder is left, every file under imports/ is there once (no second copy
// under a suffixed name), the files are exactly the conversations of the
// imports in place, and undoing them leaves no file behind.
// The kills are shared among four workspaces side by side (crashLanes).
func TestCrashImport(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const n = 150
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		at := 1700000000 + i*3600
		fmt.Fprintf(&b, `{"id": "conv%04d-0000", "title": "Talk %d", "create_time": %d, "current_node": "a", "mapping": {`+
			`"u": {"id": "u", "parent": null, "children": ["a"], "message": {"id": "u", "author": {"role": "user"}, "create_time": %d, "content": {"content_type": "text", "parts": ["question %d about the walnut desk"]}}},`+
			`"a": {"id": "a", "parent": "u", "children": [], "message": {"id": "a", "author": {"role": "assistant"}, "create_time": %d, "content": {"content_type": "text", "parts": ["answer %d about the chess library"]}}}}}`,
			i, i, at, at+1, i, at+2, i)
	}
	b.WriteString("]")
	export := filepath.Join(h.dir, "conversations.json")
	if err := os.WriteFile(export, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	crashLanes(t, h, crashKills(t), 4, func(t *testing.T, h *harness, kills int) {
		crashImportLane(t, h, export, n, kills)
	})
}

// crashImportLane kills imports of the export (n conversations) into h's
// workspace until kills of them have landed, checking after each.
func crashImportLane(t *testing.T, h *harness, export string, n, kills int) {
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	type record struct {
		ID            int64   `json:"id"`
		Conversations int     `json:"conversations"`
		UndoneAt      *string `json:"undone_at"`
	}
	inPlace := func() []record {
		t.Helper()
		var all, out []record
		if err := json.Unmarshal([]byte(h.must("", "--json", "import", "list")), &all); err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			if r.UndoneAt == nil {
				out = append(out, r)
			}
		}
		return out
	}
	imported := func() (files []string, staging []string) {
		filepath.WalkDir(filepath.Join(h.home, "imports"), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && strings.HasPrefix(d.Name(), ".import-") {
				staging = append(staging, p)
				return fs.SkipDir
			}
			if !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		return files, staging
	}
	undoAll := func(round int) {
		t.Helper()
		for _, r := range inPlace() {
			if res := h.run("", "-q", "import", "undo", strconv.FormatInt(r.ID, 10)); res.code != 0 {
				t.Fatalf("round %d: %s", round, res)
			}
		}
		if files, _ := imported(); len(files) != 0 {
			t.Fatalf("round %d: undo left %d files behind, e.g. %s", round, len(files), files[0])
		}
	}
	c := newCrashScenario(t, h)
	d := c.timed("", nil, "-q", "import", "chatgpt", export)
	undoAll(-1)
	c.run(kills, func(i int) result {
		r := h.killAfter(d, "", nil, "-q", "import", "chatgpt", export)
		records := inPlace() // import list finishes what the kill interrupted
		files, staging := imported()
		if len(staging) != 0 {
			t.Fatalf("round %d: staging left after import list: %v", i, staging)
		}
		want := 0
		for _, rec := range records {
			want += rec.Conversations
		}
		if want != 0 && want != n || len(files) != want {
			t.Fatalf("round %d: %d files for %d conversations recorded in place (%d imports)", i, len(files), want, len(records))
		}
		for _, f := range files {
			if !onePlace.MatchString(f) {
				t.Fatalf("round %d: a file placed twice: %s", i, filepath.Base(f))
			}
		}
		undoAll(i)
		return r
	})
	c.report("import")
}
