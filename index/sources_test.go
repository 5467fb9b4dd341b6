//go:build linux

package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/memory"
)

// vaultWorkspace is a workspace with a source folder "vault": nested
// folders, front matter, a wiki link, .obsidian/, a file that is not
// markdown, and a note without front matter dated 2023-05-06 by its mtime.
func vaultWorkspace(t *testing.T) (home, vault string) {
	t.Helper()
	home = workspace(t, map[string]string{"MEMORY.md": memoryMD})
	vault = t.TempDir()
	for rel, body := range map[string]string{
		"projects/garden/plan.md": "---\ndate: 2024-03-02\n---\n# Garden plan\n\nRaised beds, see [[Tomato Varieties]] #seedlings\n",
		"journal/birds.md":        "# Birds\n\nA kingfisher by the river. 河边有一只翠鸟。\n",
		".obsidian/workspace.md":  "obsidianonly\n",
		"readme.txt":              "textonly\n",
	} {
		write(t, vault, rel, body)
	}
	day := time.Date(2023, 5, 6, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(filepath.Join(vault, "journal/birds.md"), day, day); err != nil {
		t.Fatal(err)
	}
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		t.Fatal(err)
	}
	return home, vault
}

func TestQuickDigestAgreesWithWalkOverSources(t *testing.T) {
	home, vault := vaultWorkspace(t)
	checkQuickDigest(t, home, true)
	// A source folder that is gone counts as the one entry walk makes of it.
	os.Rename(vault, vault+"-away")
	checkQuickDigest(t, home, true)
	// So does a source that is a file.
	os.WriteFile(vault, []byte("not a folder"), 0o644)
	checkQuickDigest(t, home, true)
}

// While a source folder stays gone, a search or a refresh costs what it
// costs when nothing changed: the quick check, no full walk, no update.
func TestMissingSourceCostsNoWalk(t *testing.T) {
	home, vault := vaultWorkspace(t)
	ix, _ := open(t, home)
	reindex(t, ix, false)
	if err := os.Rename(vault, vault+"-away"); err != nil {
		t.Fatal(err)
	}
	ageAll(t, home)
	reindex(t, ix, false) // notes the folder gone
	walks := 0
	ix.walkHook = func() { walks++ }
	for range 3 {
		if hits := search(t, ix, "kingfisher", SearchOptions{Fresh: true}); len(hits) != 1 {
			t.Fatalf("the gone folder's notes are not searchable: %+v", hits)
		}
	}
	st, err := ix.Refresh(context.Background())
	if err != nil || st.Changes() != 0 {
		t.Fatalf("refresh: %+v %v", st, err)
	}
	if walks != 0 {
		t.Errorf("%d full walks for 3 fresh searches and a refresh, want none", walks)
	}
	// The hook is what it says: a change the quick check sees walks once.
	write(t, home, "logs/2026-11-25.md", "# today\n\nA heron.\n")
	if hits := search(t, ix, "heron", SearchOptions{Fresh: true}); len(hits) != 1 || walks != 1 {
		t.Errorf("after an edit: %d walks, hits %+v", walks, hits)
	}
}

func TestSourceNotesIndexedAndKeptWhileGone(t *testing.T) {
	home, vault := vaultWorkspace(t)
	ix, w := open(t, home)
	st := reindex(t, ix, false)
	if st.Files != 3 || st.Skipped != 0 {
		t.Fatalf("stats %+v, want MEMORY.md and two notes", st)
	}
	hits := search(t, ix, "tomato varieties", SearchOptions{})
	if len(hits) != 1 || hits[0].Path != "vault:projects/garden/plan.md" || hits[0].StartLine != 4 || hits[0].Heading != "Garden plan" || hits[0].Date != "2024-03-02" {
		t.Fatalf("hits %+v", hits)
	}
	if hits := search(t, ix, "seedlings", SearchOptions{}); len(hits) != 1 {
		t.Errorf("a #tag is not searchable: %+v", hits)
	}
	if hits := search(t, ix, "kingfisher", SearchOptions{}); len(hits) != 1 || hits[0].Date != "2023-05-06" {
		t.Errorf("a note without front matter is dated by its mtime: %+v", hits)
	}
	for _, q := range []string{"obsidianonly", "textonly"} {
		if hits := search(t, ix, q, SearchOptions{}); hits != nil {
			t.Errorf("%s indexed: %+v", q, paths(hits))
		}
	}

	// Gone: warned about once, the notes stay, through a full rebuild too.
	if err := os.Rename(vault, vault+"-away"); err != nil {
		t.Fatal(err)
	}
	w.take()
	for i, full := range []bool{false, false, true} {
		st := reindex(t, ix, full)
		if hits := search(t, ix, "kingfisher", SearchOptions{Fresh: true}); len(hits) != 1 {
			t.Fatalf("round %d (full %v): the gone folder's notes are not searchable: %+v", i, full, hits)
		}
		if hits := search(t, ix, "翠鸟", SearchOptions{}); len(hits) != 1 { // carried in its token form
			t.Errorf("round %d (full %v): a word inside a Chinese run of a gone folder's note: %+v", i, full, hits)
		}
		if st.Removed != 0 {
			t.Errorf("round %d: %d removed", i, st.Removed)
		}
		msgs := w.take()
		warned := hasWarning(msgs, "source vault: folder missing: "+vault)
		if want := i != 1; warned != want { // once per change, and again when a rebuild is asked for
			t.Errorf("round %d: warned %v, want %v: %q", i, warned, want, msgs)
		}
	}

	// Back: nothing to read again.
	if err := os.Rename(vault+"-away", vault); err != nil {
		t.Fatal(err)
	}
	st = reindex(t, ix, false)
	if st.New+st.Changed != 0 || st.Files != 3 {
		t.Errorf("after the folder returned: %+v", st)
	}

	// Removed: its notes go, the folder stays as it was.
	if _, err := memory.RemoveSource(home, "vault"); err != nil {
		t.Fatal(err)
	}
	st = reindex(t, ix, false)
	if st.Removed != 2 || st.Files != 1 {
		t.Errorf("after remove: %+v", st)
	}
	var left []string
	filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) != 4 || slices.ContainsFunc(left, func(p string) bool { return filepath.Ext(p) == ".db" }) {
		t.Errorf("the folder holds %v", left)
	}
}

// A source folder swapped for a link into the workspace after it was added
// (add refuses one) is caught at every update: the workspace's own files
// are not indexed again as the source's notes, the user is told, and the
// quick check agrees with the walk.
func TestSourceSwappedForLinkIntoWorkspace(t *testing.T) {
	home, vault := vaultWorkspace(t)
	write(t, home, "logs/2026-11-20.md", "# 2026-11-20\n\nA heron.\n")
	ix, w := open(t, home)
	reindex(t, ix, false)
	for _, target := range []string{home, filepath.Join(home, "logs")} {
		must(t, os.RemoveAll(vault))
		must(t, os.Symlink(target, vault))
		checkQuickDigest(t, home, true)
		w.take()
		reindex(t, ix, false)
		for _, q := range []string{"hazelnuts", "heron", "kingfisher"} {
			for _, p := range paths(search(t, ix, q, SearchOptions{})) {
				if strings.HasPrefix(p, "vault:") {
					t.Errorf("link to %s: %s found as %s", target, q, p)
				}
			}
		}
		if msgs := w.take(); !hasWarning(msgs, "source vault:", "overlaps the workspace", "agent memory sources remove vault") {
			t.Errorf("link to %s: not told: %q", target, msgs)
		}
		must(t, os.Remove(vault))
	}
}
