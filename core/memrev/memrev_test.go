package memrev_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/memrev"
	"agent/core/statedb"
	"agent/memory"
	"agent/soul/revisions"
)

func TestRevisionsDiffRevert(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	// A workspace's MEMORY.md and the state.db tables memrev uses, without
	// core (which stands above this package).
	if err := os.WriteFile(filepath.Join(home, "MEMORY.md"), []byte("# Memory\n\n## Preferences\n\n- Tea, not coffee.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := statedb.Open(ctx, filepath.Join(home, "state.db"), true, []statedb.Set{
		{Component: "revisions", Files: revisions.Migrations}, {Component: "memrev", Files: memrev.Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := memrev.NewStore(db, home, nil)
	path := filepath.Join(home, "MEMORY.md")
	initial, _ := os.ReadFile(path)

	// An agent change: the initial file is recorded first as the user's.
	if _, err := memrev.AppendFact(ctx, db, home, memrev.Agent, "memory_append tool", "Likes green tea", "Preferences", nil); err != nil {
		t.Fatal(err)
	}
	// An edit with an editor, noticed by the next reader.
	edited, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(edited, "- typed by hand\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	hist, err := st.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range hist {
		got = append(got, string(r.Author)+":"+r.Reason)
	}
	if want := "user:edited outside agent,agent:memory_append tool,user:initial"; strings.Join(got, ",") != want {
		t.Fatalf("history %v, want %s", got, want)
	}
	r2, _ := st.Get(ctx, hist[1].ID)
	r1, _ := st.Get(ctx, hist[2].ID)
	d := revisions.Diff("a", r1.Content, "b", r2.Content)
	if !strings.Contains(d, "\n+- Likes green tea\n") || strings.Count(d, "\n-") != 1 { // only the "---" header

		t.Errorf("diff of the agent's change:\n%s", d)
	}

	// Revert to the initial version: a new revision; nothing is lost.
	rev, err := st.Revert(ctx, hist[2].ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(initial) {
		t.Errorf("reverted file:\n%s", b)
	}
	if rev.Author != memrev.User || rev.Reason != "revert to revision 1" {
		t.Errorf("revert revision %+v", rev)
	}
	if old, _ := st.Get(ctx, hist[0].ID); !strings.Contains(old.Content, "typed by hand") {
		t.Error("the hand edit is not kept in history")
	}
	if _, err := st.Get(ctx, 99); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("unknown revision: %v", err)
	}

	// A change whose process fails after writing (as if killed before the
	// commit) is not lost: the next reader records it.
	_, err = st.Change(ctx, memrev.Agent, "half", func() error {
		if _, err := memory.AppendFact(home, "Written then failed", ""); err != nil {
			return err
		}
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("the failing change succeeded")
	}
	hist, _ = st.History(ctx)
	last, _ := st.Get(ctx, hist[0].ID)
	if hist[0].Reason != memrev.ReasonEdited || !strings.Contains(last.Content, "Written then failed") {
		t.Errorf("after a failed change: %+v", hist[0])
	}
	// A change that changes nothing records nothing.
	n := len(hist)
	if _, err := st.Change(ctx, memrev.Agent, "noop", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if hist, _ = st.History(ctx); len(hist) != n {
		t.Errorf("a no-op change was recorded")
	}
}
