package index

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// Each chunk is in the FTS table once, in its token form: a chunk with no
// run to split as it is, one with a run (in its text or only in its
// heading) with each character of the run apart, never also as the single
// token unicode61 makes of the whole run. Checked after a build and after
// the CJK note changed (its old form must leave as it came in).
func TestEachChunkIndexedOnceInItsForm(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-05-01.md": "# 2026-05-01\n\n## Plans\n\n标准计划中 booked flights\n",
		"logs/2026-05-02.md": "# 2026-05-02\n\n## 旅行\n\nwindow seat\n",
		"logs/2026-05-03.md": "# 2026-05-03\n\n## Errands\n\nbought walrus food\n",
	})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	count := func(match string) int {
		t.Helper()
		db, err := sql.Open("sqlite3", home+"/"+FileName)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, match).Scan(&n); err != nil {
			t.Fatalf("%s: %v", match, err)
		}
		return n
	}
	check := func(want map[string]int) {
		t.Helper()
		for match, n := range want {
			if got := count(match); got != n {
				t.Errorf("rows matching %s: %d, want %d", match, got, n)
			}
		}
	}
	check(map[string]int{
		`"标 准"`:             1, // the form of the run
		`标准计划中`:             0, // the run as one token: not indexed
		`heading:"旅 行"`:     1, // a run in the heading only
		`heading:旅行`:        0,
		`walrus`:            1, // English as it is
		`flights AND "计 划"`: 1,
	})
	write(t, home, "logs/2026-05-01.md", "# 2026-05-01\n\n## Plans\n\n重跑 the report\n")
	reindex(t, ix, false)
	check(map[string]int{`"标 准"`: 0, `标准计划中`: 0, `"重 跑"`: 1, `重跑`: 0, `report`: 1, `flights`: 0})
}

// A batch holding more CJK chunks than one INSERT of token forms carries
// (formRows) has them all indexed, in several statements.
func TestManyFormsInOneBatch(t *testing.T) {
	const n = formRows + 100
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "## 笔记 %d\n\n今天的计划 %d\n\n", i, i)
	}
	home := workspace(t, map[string]string{"logs/notes.md": b.String()})
	ix, _ := open(t, home)
	if st := reindex(t, ix, false); st.Chunks != n {
		t.Fatalf("%d chunks, want %d: the test needs one per section", st.Chunks, n)
	}
	db, err := sql.Open("sqlite3", home+"/"+FileName)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, match := range []string{`"计 划"`, `heading:"笔 记"`} {
		var got int
		if err := db.QueryRow(`SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, match).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("rows matching %s: %d, want %d", match, got, n)
		}
	}
}
