package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vault is a notes folder outside a workspace: nested folders, front
// matter, a wiki link and an .obsidian/ folder.
func vault(t *testing.T) (home, dir string) {
	t.Helper()
	home, dir = t.TempDir(), t.TempDir()
	files := map[string]string{
		"projects/garden/plan.md": "---\ndate: 2024-03-02\n---\n# Garden plan\n\nSee [[Tomatoes]] #seedlings\n",
		"inbox.md":                "Quick note\n",
		".obsidian/workspace.md":  "settings\n",
		"notes.txt":               "not markdown\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, dir
}

func TestSourcesAddListRemove(t *testing.T) {
	home, dir := vault(t)
	if _, err := AddSource(home, "vault", dir); err != nil {
		t.Fatal(err)
	}
	list, err := LoadSources(home)
	if err != nil || len(list) != 1 || list[0].Name != "vault" || list[0].Dir != dir {
		t.Fatalf("LoadSources = %v, %v", list, err)
	}
	for _, tc := range []struct {
		name, dir string
		want      error
	}{
		{"vault", dir, ErrInvalid},                             // taken
		{"X", dir, ErrInvalid},                                 // one letter reads as a drive
		{"my notes", dir, ErrInvalid},                          // not a name
		{"other", filepath.Join(dir, "missing"), ErrNotFound},  // no folder
		{"other", filepath.Join(dir, "inbox.md"), ErrInvalid},  // a file
		{"other", home, ErrInvalid},                            // the workspace itself
		{"other", filepath.Dir(home), ErrInvalid},              // holds the workspace
		{"inside", filepath.Join(home), ErrInvalid},            // overlaps
		{"logs", filepath.Join(dir, "projects"), nil},          // fine: another folder
		{"logs", filepath.Join(dir, "projects"), ErrInvalid},   // now taken
		{"garden", filepath.Join(dir, "projects/garden"), nil}, // nested sources are the user's call
	} {
		_, err := AddSource(home, tc.name, tc.dir)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("AddSource(%q, %q) = %v, want %v", tc.name, tc.dir, err, tc.want)
		}
	}
	if _, err := RemoveSource(home, "nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RemoveSource(nosuch) = %v", err)
	}
	if _, err := RemoveSource(home, "logs"); err != nil {
		t.Fatal(err)
	}
	list, _ = LoadSources(home)
	if len(list) != 2 || list[0].Name != "vault" || list[1].Name != "garden" {
		t.Fatalf("after remove: %v", list)
	}
	// A hand-broken file is an error that says which file, not an empty list.
	os.WriteFile(filepath.Join(home, SourcesFile), []byte(`{"sources":[{"name":"a b","dir":"x"}]}`), 0o600)
	if _, err := LoadSources(home); err == nil || !strings.Contains(err.Error(), SourcesFile) {
		t.Errorf("a bad sources.json: %v", err)
	}
}

func TestParseCitationOfASource(t *testing.T) {
	for in, want := range map[string]string{
		"vault:projects/garden/plan.md:4-6 › Garden plan": "vault:projects/garden/plan.md",
		"`vault:inbox.md`":            "vault:inbox.md",
		"vault:./projects/plan.md:3":  "vault:projects/plan.md",
		"my-notes:2024/Daily Note.md": "my-notes:2024/Daily Note.md",
		"logs/2026-11-20.md:14-22":    "logs/2026-11-20.md",
		"imports/chatgpt/2024/x.md:3": "imports/chatgpt/2024/x.md",
	} {
		c, err := ParseCitation(in)
		if err != nil || c.Path != want {
			t.Errorf("ParseCitation(%q) = %q, %v; want %q", in, c.Path, err, want)
		}
	}
	for _, in := range []string{"vault:../x.md", "vault:/etc/passwd.md", "vault:.obsidian/w.md", "vault:notes.txt", "vault:a/../../b.md", "imports"} {
		if _, err := ParseCitation(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseCitation(%q) = %v, want ErrInvalid", in, err)
		}
	}
}

func TestReadOfASource(t *testing.T) {
	home, dir := vault(t)
	if _, err := AddSource(home, "vault", dir); err != nil {
		t.Fatal(err)
	}
	ex, err := Read(home, "vault:projects/garden/plan.md", 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ex.StartLine != 4 || ex.EndLine != 6 || ex.Lines[0] != "# Garden plan" || ex.Lines[2] != "See [[Tomatoes]] #seedlings" {
		t.Fatalf("Read = %+v", ex)
	}
	if _, err := Read(home, "vault:missing.md", 0, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing note: %v", err)
	}
	if _, err := Read(home, "other:plan.md", 0, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown source: %v", err)
	}
	// A link inside the folder that leads out of it is not followed.
	os.WriteFile(filepath.Join(home, "MEMORY.md"), []byte("# Memory\n"), 0o644)
	if err := os.Symlink(filepath.Join(home, "MEMORY.md"), filepath.Join(dir, "out.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(home, "vault:out.md", 0, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("a link out of the source: %v", err)
	}
}

func TestFrontMatterDate(t *testing.T) {
	for in, want := range map[string]string{
		"---\ndate: 2024-03-02\n---\n# x\n":                    "2024-03-02",
		"---\ncreated: 2021-01-05T10:00:00Z\ntags: [a]\n---\n": "2021-01-05",
		"---\ncreated: 2021-01-05\ndate: '2022-02-02'\n---\n":  "2022-02-02",
		"---\ntitle: x\n---\n":                                 "",
		"# date: 2024-03-02\n":                                 "",
		"---\ndate: yesterday\n---\n":                          "",
		"---\ndate: 2024-03-02\n":                              "", // never closed: not front matter
	} {
		if got := FrontMatterDate([]byte(in)); got != want {
			t.Errorf("FrontMatterDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMonitorWatchesSources(t *testing.T) {
	home, dir := vault(t)
	if _, err := AddSource(home, "vault", dir); err != nil {
		t.Fatal(err)
	}
	m, err := NewMonitor(home)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	changed(t, m) // the first answer is always "changed"
	if changed(t, m) {
		t.Fatal("nothing happened, yet changed")
	}
	// Obsidian rewrites its own settings all the time: not a change.
	os.WriteFile(filepath.Join(dir, ".obsidian", "workspace.md"), []byte("other\n"), 0o644)
	if changed(t, m) {
		t.Fatal("a write in .obsidian/ counted as a change")
	}
	os.WriteFile(filepath.Join(dir, "projects", "garden", "plan.md"), []byte("# Changed\n"), 0o644)
	if !changed(t, m) {
		t.Fatal("an edit of a note in a source went unseen")
	}
	os.Mkdir(filepath.Join(dir, "new"), 0o755)
	changed(t, m)
	os.WriteFile(filepath.Join(dir, "new", "n.md"), []byte("# New\n"), 0o644)
	if !changed(t, m) {
		t.Fatal("a note in a new folder of a source went unseen")
	}
	// A source added while the monitor runs is news, and is watched.
	other := t.TempDir()
	if _, err := AddSource(home, "other", other); err != nil {
		t.Fatal(err)
	}
	if !changed(t, m) {
		t.Fatal("a source added went unseen")
	}
	os.WriteFile(filepath.Join(other, "n.md"), []byte("# N\n"), 0o644)
	if !changed(t, m) {
		t.Fatal("a note in a source added later went unseen")
	}
	// The folder going away is seen, and since its return raises no event
	// here, every later question is answered "changed".
	os.Rename(dir, dir+"-away")
	defer os.Rename(dir+"-away", dir)
	if !changed(t, m) || !changed(t, m) {
		t.Fatal("a source folder that went away must make the monitor unsure")
	}
}
