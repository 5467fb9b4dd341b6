package memory

import (
	"os"
	"path/filepath"
	"testing"
)

// A hidden file that an editor or the system writes straight into a watched
// source folder, or into a folder of it — a swap file, .DS_Store, an
// editor's temp file — is never indexed, so it is not a change: a REPL would
// otherwise walk every source before each turn while the user types in vim.
// A note beside them is one, and so is a note in a source folder whose own
// name is hidden (only names inside the source count).
func TestMonitorIgnoresHiddenFilesInSources(t *testing.T) {
	home := t.TempDir()
	parent := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(parent, "vault")
	hiddenDir := filepath.Join(parent, ".notes")
	must(os.MkdirAll(filepath.Join(dir, "projects"), 0o755))
	must(os.Mkdir(hiddenDir, 0o755))
	must(os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n"), 0o644))
	if _, err := AddSource(home, "vault", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := AddSource(home, "hidden", hiddenDir); err != nil {
		t.Fatal(err)
	}
	m, err := NewMonitor(home)
	must(err)
	defer m.Close()
	changed(t, m) // the first answer is always "changed"
	if changed(t, m) {
		t.Fatal("nothing happened, yet changed")
	}

	for _, name := range []string{".swap.md", ".DS_Store", ".plan.md.swp", ".~lock.plan.md#", "projects/.notes.md.tmp"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(os.WriteFile(p, []byte("scratch\n"), 0o644))
		if changed(t, m) {
			t.Errorf("writing %s in a source counted as a change", name)
		}
		must(os.Rename(p, p+"~"))
		must(os.Remove(p + "~"))
		if changed(t, m) {
			t.Errorf("renaming and removing %s in a source counted as a change", name)
		}
	}

	must(os.WriteFile(filepath.Join(dir, "new.md"), []byte("# New\n"), 0o644))
	if !changed(t, m) {
		t.Error("a new note in a source went unseen")
	}
	must(os.WriteFile(filepath.Join(hiddenDir, "n.md"), []byte("# N\n"), 0o644))
	if !changed(t, m) {
		t.Error("a note in a source folder named .notes went unseen")
	}
}
