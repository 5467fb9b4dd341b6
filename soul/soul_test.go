package soul

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"agent/soul/revisions"
)

// openDB opens a real state.db with the settings core uses and the
// migrations of the revisions store and of this package applied, in core's
// order.
func openDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db := openFile(t, filepath.Join(dir, "state.db"))
	for _, set := range []fs.FS{revisions.Migrations, Migrations} {
		names, err := fs.Glob(set, "migrations/*.sql")
		if err != nil || len(names) == 0 {
			t.Fatalf("no migrations: %v", err)
		}
		for _, n := range names {
			body, err := fs.ReadFile(set, n)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(string(body)); err != nil {
				t.Fatalf("apply %s: %v", n, err)
			}
		}
	}
	return db
}

func openFile(t *testing.T, file string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+file+"?mode=rwc&_busy_timeout=10000&_txlock=immediate&_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

const initial = "# Soul\n\nI am Atlas.\n"

// setup makes a workspace dir with SOUL.md holding content and a Store on it.
func setup(t *testing.T, content string) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "SOUL.md")
	writeFile(t, path, content)
	return NewStore(openDB(t, dir), path, clock()), path
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summary renders the history as "id author reason" lines, newest first.
func summary(t *testing.T, s *Store) string {
	t.Helper()
	h, err := s.History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range h {
		lines = append(lines, fmt.Sprintf("%d %s %s", r.ID, r.Author, r.Reason))
	}
	return strings.Join(lines, "\n")
}

func TestLoadRecordsInitialOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := setup(t, initial)
	for range 3 {
		soul, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if soul.Content != initial || soul.Revision != 1 || len(soul.Warnings) != 0 {
			t.Fatalf("Load = %+v", soul)
		}
	}
	if got := summary(t, s); got != "1 user initial" {
		t.Fatalf("history = %q", got)
	}
	r, err := s.Get(ctx, 1)
	if err != nil || r.Content != initial || r.SHA256 != revisions.Hash(initial) || r.CreatedAt.IsZero() {
		t.Fatalf("Get(1) = %+v, %v", r, err)
	}
}

func TestEditorEditIsRecordedBeforeAnyWrite(t *testing.T) {
	ctx := context.Background()
	s, path := setup(t, initial)
	if _, err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	edited := initial + "- I like tea.\n"
	writeFile(t, path, edited)
	// History notices the edit itself.
	if got := summary(t, s); got != "2 user edited outside agent\n1 user initial" {
		t.Fatalf("history after an editor edit = %q", got)
	}
	writeFile(t, path, edited+"- And biscuits.\n")
	// An agent save over an unrecorded edit records the edit first.
	rev, err := s.Save(ctx, initial+"- I am curious.\n", Agent, "noticed curiosity")
	if err != nil {
		t.Fatal(err)
	}
	if rev.ID != 4 || rev.Author != Agent || rev.Reason != "noticed curiosity" {
		t.Fatalf("Save = %+v", rev)
	}
	if got := summary(t, s); got != "4 agent noticed curiosity\n3 user edited outside agent\n2 user edited outside agent\n1 user initial" {
		t.Fatalf("history = %q", got)
	}
	r3, err := s.Get(ctx, 3)
	if err != nil || r3.Content != edited+"- And biscuits.\n" {
		t.Fatalf("revision 3 = %q, %v", r3.Content, err)
	}
	if got := readFileT(t, path); got != initial+"- I am curious.\n" {
		t.Fatalf("SOUL.md = %q", got)
	}
}

func TestSaveSameContentRecordsNothing(t *testing.T) {
	ctx := context.Background()
	s, _ := setup(t, initial)
	rev, err := s.Save(ctx, initial, User, "no change")
	if err != nil || rev.ID != 1 || rev.Reason != ReasonInitial {
		t.Fatalf("Save of unchanged content = %+v, %v; want revision 1", rev, err)
	}
	if got := summary(t, s); got != "1 user initial" {
		t.Fatalf("history = %q", got)
	}
}

func TestSaveRefusals(t *testing.T) {
	ctx := context.Background()
	s, path := setup(t, initial)
	big := strings.Repeat("x", MaxBytes+1)
	for _, tc := range []struct {
		name, content string
		author        Author
		reason        string
	}{
		{"agent over cap", big, Agent, "grow"},
		{"agent empty", " \n", Agent, "wipe"},
		{"invalid utf8", "bad \xff", User, ""},
		{"unknown author", "x", Author("model"), ""},
		{"reason too long", "x", Agent, strings.Repeat("r", revisions.MaxReasonRunes+1)},
	} {
		if _, err := s.Save(ctx, tc.content, tc.author, tc.reason); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Save = %v, want ErrInvalid", tc.name, err)
		}
	}
	if got := readFileT(t, path); got != initial {
		t.Fatalf("SOUL.md changed by refused saves: %q", got)
	}
	if got := summary(t, s); got != "1 user initial" {
		t.Fatalf("history = %q", got)
	}
	// At the cap exactly, the agent may save; the user may go beyond it.
	atCap := strings.Repeat("y", MaxBytes)
	if _, err := s.Save(ctx, atCap, Agent, "fill"); err != nil {
		t.Fatalf("agent save at the cap: %v", err)
	}
	if _, err := s.Save(ctx, big, User, "my long soul"); err != nil {
		t.Fatalf("user save over the cap: %v", err)
	}
}

func TestSaveFoldsReasonOntoOneLine(t *testing.T) {
	s, _ := setup(t, initial)
	rev, err := s.Save(context.Background(), "new\n", Agent, "  first line\nsecond\tline\x1b[31m ")
	if err != nil {
		t.Fatal(err)
	}
	if rev.Reason != "first line second line [31m" {
		t.Fatalf("reason = %q", rev.Reason)
	}
}

func TestLoadOverCapWarnsAndKeepsEverything(t *testing.T) {
	big := strings.Repeat("persona line\n", MaxBytes/13+10)
	s, _ := setup(t, big)
	soul, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if soul.Content != big {
		t.Fatalf("Load cut the content: %d bytes of %d", len(soul.Content), len(big))
	}
	if len(soul.Warnings) != 1 || !strings.Contains(soul.Warnings[0], "over the 16384-byte cap") {
		t.Fatalf("warnings = %q", soul.Warnings)
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	s, path := setup(t, initial)
	if _, err := s.Load(ctx); err != nil { // revision 1
		t.Fatal(err)
	}
	os.Remove(path)
	_, err := s.Load(ctx)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load of a missing SOUL.md = %v, want an error naming %s", err, path)
	}
	// Its history lives in state.db and is what the user needs now.
	if hist, err := s.History(ctx); err != nil || len(hist) != 1 {
		t.Fatalf("History with a missing SOUL.md: %d revisions, %v", len(hist), err)
	}
	if !strings.Contains(err.Error(), "agent soul revert 1") {
		t.Errorf("the error does not point at the user's own revision: %v", err)
	}
	writeFile(t, path, "ok\xc3(")
	_, err = s.Load(ctx)
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") || !strings.Contains(err.Error(), "offset 2") {
		t.Fatalf("Load of invalid UTF-8 = %v", err)
	}
	if hist, err := s.revs.History(ctx, ""); err != nil || len(hist) != 1 {
		t.Fatalf("%d revisions: something was recorded from unreadable files (%v)", len(hist)-1, err)
	}
}

func TestRevert(t *testing.T) {
	ctx := context.Background()
	s, path := setup(t, initial)
	if _, err := s.Save(ctx, "second\n", Agent, "change"); err != nil {
		t.Fatal(err)
	}
	rev, err := s.Revert(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rev.ID != 3 || rev.Author != User || rev.Reason != "revert to revision 1" || rev.Content != initial {
		t.Fatalf("Revert = %+v", rev)
	}
	if got := readFileT(t, path); got != initial {
		t.Fatalf("SOUL.md after revert = %q", got)
	}
	// Reverting to what the file holds adds nothing.
	if rev, err := s.Revert(ctx, 1); err != nil || rev.ID != 3 {
		t.Fatalf("second Revert = %+v, %v; want revision 3 again", rev, err)
	}
	if _, err := s.Revert(ctx, 42); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Revert(42) = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, 42); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(42) = %v, want ErrNotFound", err)
	}
	// A deleted SOUL.md can be brought back by revert.
	os.Remove(path)
	if _, err := s.Revert(ctx, 2); err != nil {
		t.Fatalf("Revert with SOUL.md missing: %v", err)
	}
	if got := readFileT(t, path); got != "second\n" {
		t.Fatalf("SOUL.md after revert = %q", got)
	}
	if got := summary(t, s); got != "4 user revert to revision 2\n3 user revert to revision 1\n2 agent change\n1 user initial" {
		t.Fatalf("history = %q", got)
	}
}

func TestSaveKeepsSymlinkAndMode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dotfiles := filepath.Join(dir, "dotfiles")
	if err := os.Mkdir(dotfiles, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "soul.md")
	if err := os.WriteFile(target, []byte(initial), 0o640); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "SOUL.md")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	s := NewStore(openDB(t, dir), path, clock())
	if _, err := s.Save(ctx, "new\n", User, "edit"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("SOUL.md is no longer a symlink: %v", err)
	}
	fi, err := os.Stat(target)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("target mode = %v, %v; want 0640", fi.Mode(), err)
	}
	if got := readFileT(t, target); got != "new\n" {
		t.Fatalf("target = %q", got)
	}
	for _, d := range []string{dir, dotfiles} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("temp file left behind: %s", filepath.Join(d, e.Name()))
			}
		}
	}
}

// A write of SOUL.md that fails records no revision: Save and Revert
// report the error, and the history and the file are as they were. The
// failure is a real one of the write, not a stand-in: SOUL.md links to a
// file whose name is as long as a name may be, so the temp file beside it
// ("." + name + ".tmp" + digits) cannot be created (ENAMETOOLONG), even
// for root.
func TestFailedWriteRecordsNoRevision(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	target := filepath.Join(dir, strings.Repeat("s", 250)+".md")
	writeFile(t, target, initial)
	path := filepath.Join(dir, "SOUL.md")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	s := NewStore(openDB(t, dir), path, clock())
	if _, err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	const before = "1 user initial"
	for _, c := range []struct {
		name  string
		write func() error
	}{
		{"agent save", func() error {
			_, err := s.Save(ctx, initial+"- I am curious.\n", Agent, "noticed curiosity")
			return err
		}},
		{"user save", func() error { _, err := s.Save(ctx, "# Soul\n\nI am Hermes.\n", User, "rename"); return err }},
		{"revert", func() error { _, err := s.Revert(ctx, 1); return err }},
	} {
		name, write := c.name, c.write
		if name == "revert" {
			// Something to revert from: an editor's change, which the
			// revert records before it tries to write.
			writeFile(t, target, initial+"- Edited by hand.\n")
		}
		want := readFileT(t, target)
		wantHistory := before
		if name == "revert" {
			wantHistory = "2 user edited outside agent\n" + before
		}
		if err := write(); err == nil {
			t.Fatalf("%s: a write that could not happen reported success", name)
		}
		if got := summary(t, s); got != wantHistory {
			t.Errorf("%s: history after the failed write =\n%s\nwant\n%s", name, got, wantHistory)
		}
		if got := readFileT(t, target); got != want {
			t.Errorf("%s: SOUL.md = %q, want it untouched: %q", name, got, want)
		}
	}
}

// TestConcurrentSaves runs two stores on separate connections (as two agent
// processes would) saving at once: afterwards every save has its revision,
// and the file holds exactly the latest revision's content.
func TestConcurrentSaves(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "SOUL.md")
	writeFile(t, path, initial)
	stores := []*Store{
		NewStore(openDB(t, dir), path, clock()),
		NewStore(openFile(t, filepath.Join(dir, "state.db")), path, clock()),
	}
	const n = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if _, err := s.Save(ctx, fmt.Sprintf("writer %d save %d\n", w, i), Agent, "test"); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h, err := stores[0].History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 2n agent saves plus the initial revision, and no "edited outside
	// agent": the writers never saw each other's file half-recorded.
	if len(h) != 2*n+1 {
		t.Fatalf("%d revisions, want %d", len(h), 2*n+1)
	}
	for _, r := range h[:2*n] {
		if r.Author != Agent {
			t.Fatalf("revision %d is by %s (%s): a save interleaved with another", r.ID, r.Author, r.Reason)
		}
	}
	latest, err := stores[1].Get(ctx, h[0].ID)
	if err != nil || latest.Content != readFileT(t, path) {
		t.Fatalf("SOUL.md does not hold the latest revision %d (%v)", h[0].ID, err)
	}
}

// BenchmarkLoadUnchanged is the cost every chat turn pays to read SOUL.md
// and check it against the latest revision.
func BenchmarkLoadUnchanged(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "SOUL.md")
	if err := os.WriteFile(path, []byte(strings.Repeat("persona line\n", 300)), 0o600); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "state.db")+"?mode=rwc&_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	body, _ := fs.ReadFile(Migrations, "migrations/0001_init.sql")
	if _, err := db.Exec(string(body)); err != nil {
		b.Fatal(err)
	}
	s := NewStore(db, path, nil)
	ctx := context.Background()
	if _, err := s.Load(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Load(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
