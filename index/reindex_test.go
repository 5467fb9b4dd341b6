package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	memoryMD = "# Memory\n\n## User Facts\n\n- Allergic to hazelnuts.\n- Drives a green tandem bicycle.\n"
	log1     = "# 2026-11-20\n\n## Trip planning › Flights\n\nBooked the flight to Lisbon, seat 14C.\n\n## Groceries\n\nBuy oat milk and lemons.\n"
	log2     = "# 2026-11-21\n\n## Garden\n\nPlanted tulip bulbs along the fence.\n"
)

func TestFullReindexAndSearch(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD, "logs/2026-11-20.md": log1, "logs/2026-11-21.md": log2})
	ix, w := open(t, home)
	w.take()
	st := reindex(t, ix, true)
	if !st.Full || st.New != 3 || st.Files != 3 || st.Chunks < 4 || st.Skipped != 0 {
		t.Fatalf("stats = %+v", st)
	}
	if st.Bytes != int64(len(memoryMD)+len(log1)+len(log2)) {
		t.Errorf("bytes = %d", st.Bytes)
	}
	hits := search(t, ix, "lisbon flight", SearchOptions{})
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	h := hits[0]
	want := Hit{Path: "logs/2026-11-20.md", StartLine: 3, EndLine: 5, Heading: "Trip planning › Flights", Date: "2026-11-20",
		Text: "## Trip planning › Flights\n\nBooked the flight to Lisbon, seat 14C."}
	if h.Path != want.Path || h.StartLine != want.StartLine || h.EndLine != want.EndLine || h.Heading != want.Heading ||
		h.Date != want.Date || h.Text != want.Text {
		t.Errorf("hit = %+v\nwant  %+v", h, want)
	}
	if h.Score <= 0 {
		t.Errorf("score = %v, want positive", h.Score)
	}
	if !strings.Contains(h.Snippet, MarkStart+"Lisbon"+MarkEnd) {
		t.Errorf("snippet %q does not mark Lisbon", h.Snippet)
	}
	if got := w.take(); len(got) != 0 {
		t.Errorf("warnings on a clean workspace: %q", got)
	}
}

func TestIncrementalReindex(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD, "logs/2026-11-20.md": log1, "logs/2026-11-21.md": log2})
	ageAll(t, home)
	ix, _ := open(t, home)
	first := reindex(t, ix, false)
	if first.New != 3 {
		t.Fatalf("first reindex = %+v", first)
	}

	// Nothing changed: the digest answers without reading anything.
	st := reindex(t, ix, false)
	if st.Changes() != 0 || st.Unchanged != 3 || st.Files != 3 || st.Chunks != first.Chunks {
		t.Fatalf("no-change reindex = %+v", st)
	}

	// One changed, one new, one deleted.
	write(t, home, "logs/2026-11-20.md", log1+"\n## Later\n\nCancelled the Lisbon trip; going to Oslo.\n")
	write(t, home, "logs/sub/2026-11-22.md", "# 2026-11-22\n\nSaw a heron by the canal.\n")
	os.Remove(filepath.Join(home, "logs/2026-11-21.md"))
	ageAll(t, home)
	st = reindex(t, ix, false)
	if st.New != 1 || st.Changed != 1 || st.Removed != 1 || st.Unchanged != 1 || st.Files != 3 {
		t.Fatalf("incremental = %+v", st)
	}
	if got := paths(search(t, ix, "oslo", SearchOptions{})); !reflect.DeepEqual(got, []string{"logs/2026-11-20.md"}) {
		t.Errorf("oslo: %v", got)
	}
	if got := paths(search(t, ix, "heron", SearchOptions{})); !reflect.DeepEqual(got, []string{"logs/sub/2026-11-22.md"}) {
		t.Errorf("heron: %v", got)
	}
	if got := search(t, ix, "tulip", SearchOptions{}); got != nil {
		t.Errorf("deleted file still found: %v", paths(got))
	}

	// The incremental result equals a rebuild's.
	inc := allHits(t, ix)
	full := reindex(t, ix, true)
	if full.Files != st.Files || full.Chunks != st.Chunks || full.Bytes != st.Bytes {
		t.Errorf("full %+v != incremental %+v", full, st)
	}
	if rebuilt := allHits(t, ix); !reflect.DeepEqual(inc, rebuilt) {
		t.Errorf("incremental index differs from a rebuild:\n%v\n%v", inc, rebuilt)
	}
}

// allHits lists every chunk through the search path, in a stable order.
func allHits(t *testing.T, ix *Index) []string {
	t.Helper()
	rows, err := ix.db.Query("SELECT f.path, c.start_line, c.end_line, c.heading, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY 1, 2")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, h, tx string
		var a, b int
		rows.Scan(&p, &a, &b, &h, &tx)
		out = append(out, strings.Join([]string{p, h, tx}, "|"))
	}
	// The FTS index agrees with the table (integrity-check reads both).
	if _, err := ix.db.Exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Errorf("FTS integrity check: %v", err)
	}
	return out
}

func TestTouchedButUnchangedIsNotRechunked(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	ageAll(t, home)
	ix, _ := open(t, home)
	reindex(t, ix, false)
	var before int64
	ix.db.QueryRow("SELECT min(id) FROM chunks").Scan(&before)

	later := time.Now().Add(-30 * time.Minute)
	os.Chtimes(filepath.Join(home, "MEMORY.md"), later, later)
	st := reindex(t, ix, false)
	if st.Changes() != 0 || st.Unchanged != 1 {
		t.Fatalf("touch: %+v", st)
	}
	var after int64
	ix.db.QueryRow("SELECT min(id) FROM chunks").Scan(&after)
	if after != before {
		t.Errorf("chunks rewritten (ids %d → %d)", before, after)
	}
	// And the new mtime is recorded: the next run is the no-change path.
	if st := reindex(t, ix, false); st.Unchanged != 1 {
		t.Errorf("third run: %+v", st)
	}
}

// A file rewritten with the same size within the same mtime tick as its
// indexing looks unchanged by stat; the racy mark makes the next update
// compare its content.
func TestRacyRewriteIsCaught(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "# M\n\nalpha\n"})
	p := filepath.Join(home, "MEMORY.md")
	fi, _ := os.Stat(p)
	ix, _ := open(t, home)
	reindex(t, ix, false)

	os.WriteFile(p, []byte("# M\n\nomega\n"), 0o644) // same size
	os.Chtimes(p, fi.ModTime(), fi.ModTime())        // same mtime
	st := reindex(t, ix, false)
	if st.Changed != 1 {
		t.Fatalf("racy rewrite not seen: %+v", st)
	}
	if got := search(t, ix, "omega", SearchOptions{}); len(got) != 1 {
		t.Fatalf("omega: %v", paths(got))
	}
}

func TestBadFilesAreWarnedAndSkipped(t *testing.T) {
	home := workspace(t, map[string]string{
		"MEMORY.md":          memoryMD,
		"logs/2026-11-20.md": log1,
		"logs/latin1.md":     "caf\xe9 au lait\n",
		"logs/binary.md":     "PK\x03\x04\x00\x00binary",
		"logs/notes.txt":     "not markdown: ignored silently",
		"logs/.hidden.md":    "editor swap: ignored silently",
	})
	// Over the size cap: a sparse file, so the test writes nothing big.
	big := filepath.Join(home, "logs", "huge.md")
	f, _ := os.Create(big)
	f.Truncate(MaxFileSize + 1)
	f.Close()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# Secret\n\nthe outside password\n"), 0o644)
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(home, "logs", "escape.md")))
	must(t, os.Symlink(outside, filepath.Join(home, "logs", "escapedir")))
	must(t, os.Symlink("2026-11-20.md", filepath.Join(home, "logs", "alias.md")))
	must(t, os.Symlink("nowhere.md", filepath.Join(home, "logs", "dangling.md")))
	must(t, os.Symlink(".", filepath.Join(home, "logs", "loop")))
	must(t, os.Symlink("..", filepath.Join(home, "logs", "root")))
	ageAll(t, home)

	ix, w := open(t, home)
	w.take()
	st := reindex(t, ix, false)
	msgs := w.take()
	for _, want := range [][]string{
		{"logs/latin1.md", "UTF-8"},
		{"logs/binary.md", "binary"},
		{"logs/huge.md", "larger than 8 MiB"},
		{"logs/escape.md", "outside the workspace"},
		{"logs/escapedir", "outside the workspace"},
		{"logs/dangling.md", "broken symlink"},
		{"logs/root", "outside logs/"},
	} {
		if !hasWarning(msgs, want...) {
			t.Errorf("no warning with %q in %q", want, msgs)
		}
	}
	if len(msgs) != 7 || st.Skipped != 7 {
		t.Errorf("%d warnings (%d skipped), want 7: %q", len(msgs), st.Skipped, msgs)
	}
	// The rest is indexed, the symlink inside the workspace included.
	if st.Files != 3 {
		t.Errorf("files = %d, want 3 (MEMORY.md, the log, its alias): %+v", st.Files, st)
	}
	if got := paths(search(t, ix, "lisbon", SearchOptions{})); len(got) != 2 {
		t.Errorf("lisbon: %v", got)
	}
	if got := search(t, ix, "password", SearchOptions{}); got != nil {
		t.Errorf("read through a symlink leading outside: %v", paths(got))
	}

	// Warned once: an unchanged bad file is not warned about again...
	if st := reindex(t, ix, false); st.Changes() != 0 || len(w.take()) != 0 {
		t.Errorf("second run warned again or changed: %+v", st)
	}
	// ...until it changes, and a fixed file gets indexed.
	write(t, home, "logs/latin1.md", "café au lait\n")
	age(t, home, "logs/latin1.md")
	st = reindex(t, ix, false)
	if st.Changed != 1 || len(w.take()) != 0 {
		t.Errorf("fixed file: %+v", st)
	}
	if got := paths(search(t, ix, "cafe", SearchOptions{})); !reflect.DeepEqual(got, []string{"logs/latin1.md"}) {
		t.Errorf("cafe (diacritics folded): %v", got)
	}
	status, err := ix.Status(context.Background())
	if err != nil || status.Problems != 6 {
		t.Errorf("status = %+v, %v; want 6 problems", status, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The walk only trusts what it vetted: a file that became a symlink after
// the walk is not followed (O_NOFOLLOW), and the error is a warning.
func TestReadRefusesSymlinkSwappedIn(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "x"})
	os.Remove(filepath.Join(home, "MEMORY.md"))
	os.WriteFile(filepath.Join(home, "elsewhere.md"), []byte("x"), 0o644)
	must(t, os.Symlink("elsewhere.md", filepath.Join(home, "MEMORY.md")))
	ix := &Index{home: home}
	var buf []byte
	r := ix.read(&job{e: &entry{rel: "MEMORY.md", size: 1}}, &buf)
	if r.err == nil {
		t.Fatalf("read followed a symlink it was told is a file: %+v", r)
	}
}

// A failed update leaves the previous index exactly as it was, and the next
// update does the work.
func TestFailedUpdateKeepsPreviousIndex(t *testing.T) {
	home := workspace(t, map[string]string{"logs/2026-01-01.md": "# 2026-01-01\n\nfirst mango\n"})
	ageAll(t, home)
	ix, _ := open(t, home)
	reindex(t, ix, false)
	for i := 2; i <= 9; i++ {
		write(t, home, "logs/2026-01-0"+string(rune('0'+i))+".md", "# day\n\nanother mango\n")
	}
	write(t, home, "logs/2026-01-01.md", "# 2026-01-01\n\nfirst papaya\n")
	ageAll(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := ix.Reindex(ctx, ReindexOptions{Progress: func(done, total int) {
		if done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := paths(search(t, ix, "mango", SearchOptions{})); !reflect.DeepEqual(got, []string{"logs/2026-01-01.md"}) {
		t.Fatalf("after a cancelled update: %v", got)
	}
	st := reindex(t, ix, false)
	if st.New != 8 || st.Changed != 1 {
		t.Fatalf("next update: %+v", st)
	}
	if got := paths(search(t, ix, "papaya", SearchOptions{})); len(got) != 1 {
		t.Fatalf("papaya: %v", got)
	}
}

// A full rebuild that fails leaves the old index.db in place and no
// temporary file behind.
func TestFailedRebuildKeepsOldFile(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": "# M\n\nkiwi\n", "logs/2026-01-01.md": "# d\n\nkiwi again\n"})
	ix, _ := open(t, home)
	reindex(t, ix, true)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := ix.Reindex(ctx, ReindexOptions{Full: true, Progress: func(done, total int) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if got := search(t, ix, "kiwi", SearchOptions{}); len(got) != 2 {
		t.Fatalf("old index lost: %v", paths(got))
	}
	if left, _ := filepath.Glob(filepath.Join(home, RebuildPrefix+"*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Two processes refreshing the same workspace at once serialise on the
// write lock; neither fails and the result is whole.
func TestConcurrentRefreshes(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files["logs/2025-01-"+pad(i+1)+".md"] = "# day\n\nentry about quinces number " + pad(i) + "\n"
	}
	home := workspace(t, files)
	a, _ := open(t, home)
	reindex(t, a, false)
	for i := range 40 {
		write(t, home, "logs/2025-02-"+pad(i+1)+".md", "# day\n\nentry about quinces\n")
	}
	b, _ := open(t, home)
	errs := make(chan error, 2)
	for _, ix := range []*Index{a, b} {
		go func() {
			_, err := ix.Refresh(context.Background())
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent refresh: %v", err)
		}
	}
	if hits := search(t, a, "quinces", SearchOptions{K: 100}); len(hits) != 80 {
		t.Fatalf("%d hits, want 80", len(hits))
	}
	allHits(t, a) // integrity check
}

func pad(i int) string {
	if i < 10 {
		return "0" + string(rune('0'+i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

func TestEmptyWorkspace(t *testing.T) {
	home := t.TempDir() // not even logs/
	ix, _ := open(t, home)
	st := reindex(t, ix, false)
	if st.Files != 0 || st.Chunks != 0 {
		t.Fatalf("%+v", st)
	}
	if _, err := ix.Search(context.Background(), "anything", SearchOptions{Fresh: true}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("search in an empty workspace: %v", err)
	}
	// logs/ created later is picked up by a fresh search.
	write(t, home, "logs/2026-05-05.md", "# 2026-05-05\n\nfound the kazoo\n")
	if got := search(t, ix, "kazoo", SearchOptions{Fresh: true}); len(got) != 1 {
		t.Fatalf("kazoo: %v", paths(got))
	}
}

// RefreshChanged is Refresh without the quick no-change check: the same
// result whether or not anything changed.
func TestRefreshChanged(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	st, err := ix.RefreshChanged(context.Background())
	if err != nil || st.Changes() != 0 || st.Unchanged != 1 {
		t.Fatalf("nothing changed: %+v, %v", st, err)
	}
	write(t, home, "logs/2026-12-01.md", "# 2026-12-01\n\nThe plumber comes on Friday.\n")
	st, err = ix.RefreshChanged(context.Background())
	if err != nil || st.New != 1 || st.Unchanged != 1 {
		t.Fatalf("one new file: %+v, %v", st, err)
	}
	if got := paths(search(t, ix, "plumber", SearchOptions{})); len(got) != 1 {
		t.Fatalf("after RefreshChanged: %v", got)
	}
}
