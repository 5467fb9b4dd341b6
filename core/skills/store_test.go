package skills

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

	"agent/core/statedb"
	"agent/soul/revisions"
)

// newStore is a Store over a real state.db (the revisions store's and this
// package's migrations, in core's order; the connection settings core uses)
// for a workspace at a temp home.
func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	home := t.TempDir()
	db := openDB(t, filepath.Join(home, "state.db"))
	var mu sync.Mutex
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	return NewStore(db, home, func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}), home
}

// openDB opens (creating it) a state.db with the revisions' and this
// package's schema, through the path core opens it by.
func openDB(t *testing.T, file string) *sql.DB {
	t.Helper()
	db, err := statedb.Open(context.Background(), file, true, []statedb.Set{{Component: "revisions", Files: revisions.Migrations}, {Component: "skills", Files: Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func history(t *testing.T, s *Store, name string) string {
	t.Helper()
	h, err := s.History(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range h {
		l := fmt.Sprintf("%d %s %s", r.ID, r.Author, r.Reason)
		if r.Removed {
			l += " (removed)"
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func readT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSaveCreatesUpdatesAndKeepsEveryVersion(t *testing.T) {
	ctx := context.Background()
	s, home := newStore(t)
	path := filepath.Join(home, "skills", "trip-plan", FileName)
	rev, err := s.Save(ctx, "trip-plan", "Plan a trip. Use when the user books travel.", "1. Ask dates.\n", Agent, "the user asked")
	if err != nil {
		t.Fatal(err)
	}
	if rev.ID != 1 || rev.Author != Agent || rev.Reason != "the user asked" || rev.Content != readT(t, path) {
		t.Fatalf("Save = %+v", rev)
	}
	if got := readT(t, path); got != "---\nname: trip-plan\ndescription: Plan a trip. Use when the user books travel.\n---\n\n1. Ask dates.\n" {
		t.Fatalf("SKILL.md = %q", got)
	}
	// The user adds a key with an editor; an agent update keeps it and
	// records the edit first.
	edited := strings.Replace(readT(t, path), "---\n\n", "license: MIT\n---\n\n", 1)
	writeT(t, path, edited)
	if _, err := s.Save(ctx, "trip-plan", "Plan a trip", "1. Ask dates.\n2. Ask budget.\n", Agent, "budget matters"); err != nil {
		t.Fatal(err)
	}
	if got := history(t, s, "trip-plan"); got != "3 agent budget matters\n2 user edited outside agent\n1 agent the user asked" {
		t.Fatalf("history =\n%s", got)
	}
	sk, err := Parse("trip-plan", []byte(readT(t, path)))
	if err != nil || sk.Extra["license"] != "MIT" || sk.Description != "Plan a trip" || !strings.Contains(sk.Body, "Ask budget") {
		t.Fatalf("after update: %+v, %v", sk, err)
	}
	// Saving the same again records nothing.
	if rev, err := s.Save(ctx, "trip-plan", "Plan a trip", "1. Ask dates.\n2. Ask budget.\n", Agent, "again"); err != nil || rev.ID != 3 {
		t.Fatalf("unchanged Save = %+v, %v", rev, err)
	}
	// No temp files left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("skill dir holds %v", entries)
	}
}

func TestSaveRefusals(t *testing.T) {
	ctx := context.Background()
	s, home := newStore(t)
	for _, tc := range []struct{ name, desc, body string }{
		{"../escape", "d", "b"},
		{"Upper", "d", "b"},
		{strings.Repeat("a", 65), "d", "b"},
		{"ok", "", "b"},
		{"ok", strings.Repeat("d", 1025), "b"},
		{"ok", "d", " \n"},
		{"ok", "d", strings.Repeat("b", MaxBodyBytes+1)},
		{"ok", "d", "bad \xff"},
	} {
		if _, err := s.Save(ctx, tc.name, tc.desc, tc.body, Agent, "r"); !errors.Is(err, ErrInvalid) {
			t.Errorf("Save(%.20q, %.20q, %.20q) = %v, want ErrInvalid", tc.name, tc.desc, tc.body, err)
		}
	}
	if _, err := s.Save(ctx, "ok", "d", "b", Agent, strings.Repeat("r", 201)); !errors.Is(err, ErrInvalid) {
		t.Errorf("long reason = %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "skills", "ok")); err == nil {
		t.Error("a refused save left a directory")
	}
	if _, err := os.Stat(filepath.Join(home, "escape")); err == nil {
		t.Error("a save escaped the skills directory")
	}
	// A workspace skill directory that links outside is not written through.
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(home, "skills"), 0o755)
	if err := os.Symlink(outside, filepath.Join(home, "skills", "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "linked", "d", "b", Agent, "r"); err == nil || !strings.Contains(err.Error(), "must live inside") {
		t.Fatalf("Save through a link out = %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside: %v", entries)
	}
	if got := history(t, s, "linked"); got != "" {
		t.Fatalf("a failed write left history %q", got)
	}
}

func TestSaveFileValidates(t *testing.T) {
	ctx := context.Background()
	s, home := newStore(t)
	if _, err := s.SaveFile(ctx, "x", "---\nname: y\ndescription: d\n---\n", User, "new"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("SaveFile mismatch = %v", err)
	}
	rev, err := s.SaveFile(ctx, "x", "---\nname: x\ndescription: d\n---\nbody\n", User, "skills new")
	if err != nil || rev.ID != 1 || readT(t, filepath.Join(home, "skills", "x", FileName)) != rev.Content {
		t.Fatalf("SaveFile = %+v, %v", rev, err)
	}
}

func TestRevertRemoveAndOutsideChanges(t *testing.T) {
	ctx := context.Background()
	s, home := newStore(t)
	dir := filepath.Join(home, "skills", "notes")
	path := filepath.Join(dir, FileName)
	// A skill written by hand is recorded as initial when first seen.
	writeSkill(t, filepath.Join(home, "skills"), "notes", "notes", "Take notes", "v1\n")
	v1 := readT(t, path)
	if err := s.Sync(ctx, "notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "notes", "Take notes", "v2\n", Agent, "better"); err != nil {
		t.Fatal(err)
	}
	rev, err := s.Revert(ctx, "notes", 1)
	if err != nil || rev.ID != 3 || rev.Reason != "revert to revision 1" || readT(t, path) != v1 {
		t.Fatalf("Revert = %+v, %v", rev, err)
	}
	if r, err := s.Revert(ctx, "notes", 1); err != nil || r.ID != 3 {
		t.Fatalf("second Revert = %+v, %v", r, err)
	}
	if _, err := s.Revert(ctx, "notes", 42); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Revert(42) = %v", err)
	}
	if _, err := s.Get(ctx, "other", 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a revision of another skill = %v", err)
	}
	// Remove keeps the user's other files and records the removal.
	writeT(t, filepath.Join(dir, "notes.txt"), "mine")
	rm, err := s.Remove(ctx, "notes", User, "agent skills remove")
	if err != nil || !rm.Revision.Removed || strings.Join(rm.Left, ",") != "notes.txt" {
		t.Fatalf("Remove = %+v, %v", rm, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("SKILL.md still there")
	}
	if readT(t, filepath.Join(dir, "notes.txt")) != "mine" {
		t.Fatal("a resource was lost")
	}
	if _, err := s.Remove(ctx, "notes", User, "again"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove = %v", err)
	}
	if _, err := s.Revert(ctx, "notes", rm.Revision.ID); !errors.Is(err, ErrInvalid) {
		t.Fatalf("revert to a removal = %v", err)
	}
	// Revert brings it back; a deletion with rm is noticed as the user's.
	if _, err := s.Revert(ctx, "notes", 2); err != nil || !strings.Contains(readT(t, path), "v2") {
		t.Fatalf("revert after remove: %v", err)
	}
	os.Remove(path)
	if err := s.Sync(ctx, "notes"); err != nil {
		t.Fatal(err)
	}
	// A removed skill with an empty directory leaves nothing.
	writeSkill(t, filepath.Join(home, "skills"), "gone", "gone", "d", "")
	if rm, err := s.Remove(ctx, "gone", User, "r"); err != nil || len(rm.Left) != 0 {
		t.Fatalf("Remove(gone) = %+v, %v", rm, err)
	}
	if _, err := os.Stat(filepath.Join(home, "skills", "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("empty skill directory left behind")
	}
	want := "6 user removed outside agent (removed)\n5 user revert to revision 2\n4 user agent skills remove (removed)\n3 user revert to revision 1\n2 agent better\n1 user initial"
	if got := history(t, s, "notes"); got != want {
		t.Fatalf("history =\n%s\nwant\n%s", got, want)
	}
}

// TestConcurrentSaves: two stores on separate connections (two processes)
// saving at once; every save has its revision and the file holds the latest.
func TestConcurrentSaves(t *testing.T) {
	ctx := context.Background()
	a, home := newStore(t)
	b := NewStore(openDB(t, filepath.Join(home, "state.db")), home, nil)
	const n = 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for w, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if _, err := s.Save(ctx, "race", "d", fmt.Sprintf("writer %d save %d\n", w, i), Agent, "test"); err != nil {
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
	h, err := a.History(ctx, "race")
	if err != nil || len(h) != 2*n {
		t.Fatalf("%d revisions (%v), want %d", len(h), err, 2*n)
	}
	for _, r := range h {
		if r.Author != Agent {
			t.Fatalf("revision %d by %s (%s): saves interleaved", r.ID, r.Author, r.Reason)
		}
	}
	latest, err := b.Get(ctx, "race", h[0].ID)
	if err != nil || latest.Content != readT(t, filepath.Join(home, "skills", "race", FileName)) {
		t.Fatalf("file is not the latest revision (%v)", err)
	}
}

// A skill the agent writes is private, as the rest of the workspace: its
// directory 0700, SKILL.md 0600, whatever the umask.
func TestSaveCreatesPrivateFiles(t *testing.T) {
	ctx := context.Background()
	s, home := newStore(t)
	if _, err := s.Save(ctx, "trip-plan", "Plan a trip.", "1. Ask dates.\n", Agent, "r"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		filepath.Join(home, "skills"):                        0o700,
		filepath.Join(home, "skills", "trip-plan"):           0o700,
		filepath.Join(home, "skills", "trip-plan", FileName): 0o600,
	} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
		}
	}
}
