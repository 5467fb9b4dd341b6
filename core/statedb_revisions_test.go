package core

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"agent/core/memrev"
	"agent/core/skills"
	"agent/soul"
	"agent/soul/revisions"
)

// A state.db written before the one revisions store (SOUL.md's, MEMORY.md's
// and the skills' revisions in three tables of their own) opens with every
// revision moved: the same numbers, authors, reasons, times and contents,
// so history, diff and revert show what that agent showed; the next
// revision of each kind continues its own numbering.
func TestRevisionsMigrateFromTheOlderTables(t *testing.T) {
	ctx := context.Background()
	ar, err := txtar.ParseFile("testdata/revisions-before.txtar")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	for _, name := range []string{"SOUL.md", "MEMORY.md", "skills/tea/SKILL.md"} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[name]), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old, err := sql.Open("sqlite3", "file:"+filepath.Join(home, StateFile)+"?mode=rwc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(files["state.sql"]); err != nil {
		t.Fatalf("load the old state.db: %v", err)
	}
	old.Close()

	ws, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, table := range []string{"soul_revisions", "memory_revisions", "skill_revisions"} {
		var n int
		if err := ws.State.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = ?", table).Scan(&n); err != nil || n != 0 {
			t.Errorf("table %s is still there (%d, %v)", table, n, err)
		}
	}

	souls := soul.NewStore(ws.State, filepath.Join(home, "SOUL.md"), nil)
	mems := memrev.NewStore(ws.State, home, nil)
	sks := skills.NewStore(ws.State, home, nil)
	hist := func(h []revisions.Revision, err error) []revisions.Revision {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	checkHistory(t, "soul", hist(souls.History(ctx)), files["want/soul.json"])
	checkHistory(t, "memory", hist(mems.History(ctx)), files["want/memory.json"])
	checkHistory(t, "tea", hist(sks.History(ctx, "tea")), files["want/tea.json"])
	checkHistory(t, "trip-planner", hist(sks.History(ctx, "trip-planner")), files["want/trip.json"])

	// Contents: the diffs that agent printed.
	diff := func(label string, get func(int64) (revisions.Revision, error), from, to int64, want string) {
		t.Helper()
		a, err := get(from)
		if err != nil {
			t.Fatal(err)
		}
		b, err := get(to)
		if err != nil {
			t.Fatal(err)
		}
		name := func(id int64) string { return label + "@" + strconv.FormatInt(id, 10) }
		if got := revisions.Diff(name(from), a.Content, name(to), b.Content); got != want {
			t.Errorf("diff %s %d %d:\n%s\nwant:\n%s", label, from, to, got, want)
		}
	}
	getSoul := func(id int64) (revisions.Revision, error) { return souls.Get(ctx, id) }
	getMem := func(id int64) (revisions.Revision, error) { return mems.Get(ctx, id) }
	getTea := func(id int64) (revisions.Revision, error) { return sks.Get(ctx, "tea", id) }
	diff("SOUL.md", getSoul, 1, 3, files["want/soul-1-3.diff"])
	diff("MEMORY.md", getMem, 3, 4, files["want/memory-3-4.diff"])
	diff("tea/SKILL.md", getTea, 2, 3, files["want/tea-2-3.diff"])

	// Each kind goes on counting from its own last number.
	s, err := souls.Save(ctx, "# Soul\n\nI am Atlas, after the move.\n", soul.User, "test")
	if err != nil || s.ID != 5 {
		t.Errorf("next soul revision = %d, %v; want 5", s.ID, err)
	}
	m, err := mems.Revert(ctx, 1)
	if err != nil || m.ID != 6 {
		t.Errorf("next memory revision = %d, %v; want 6", m.ID, err)
	}
	k, err := sks.Revert(ctx, "trip-planner", 1)
	if err != nil || k.ID != 5 || k.Content == "" {
		t.Errorf("trip-planner brought back as revision %d, %v; want 5", k.ID, err)
	}
	if b, err := os.ReadFile(filepath.Join(home, "skills/trip-planner/SKILL.md")); err != nil || string(b) != k.Content {
		t.Errorf("trip-planner's SKILL.md after revert: %q, %v", b, err)
	}
}

// checkHistory compares a history with the --json that agent printed for it.
func checkHistory(t *testing.T, what string, got []revisions.Revision, wantJSON string) {
	t.Helper()
	var want []struct {
		ID        int64  `json:"id"`
		Author    string `json:"author"`
		Reason    string `json:"reason"`
		CreatedAt string `json:"created_at"`
		SHA256    string `json:"sha256"`
	}
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d revisions, want %d: %+v", what, len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		reason := g.Reason
		if g.Removed {
			reason = "removed: " + reason
		}
		at := g.CreatedAt.UTC().Format(time.RFC3339)
		if g.ID != w.ID || string(g.Author) != w.Author || reason != w.Reason || at != w.CreatedAt || g.SHA256 != w.SHA256 {
			t.Errorf("%s revision %d = %d %s %q %s %s, want %+v", what, i, g.ID, g.Author, reason, at, g.SHA256, w)
		}
	}
}
