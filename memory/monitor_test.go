package memory

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func changed(t *testing.T, m *Monitor) bool {
	t.Helper()
	c, err := m.Changed()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMonitorSeesEveryKindOfChange(t *testing.T) {
	home := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(home, "MEMORY.md"), []byte("# Memory\n"), 0o644))
	must(os.Mkdir(filepath.Join(home, "logs"), 0o755))
	m, err := NewMonitor(home)
	must(err)
	defer m.Close()
	if !changed(t, m) {
		t.Fatal("a new monitor must answer changed first")
	}
	if changed(t, m) {
		t.Fatal("nothing happened, yet changed")
	}
	// Files that are not memory do not count: databases, locks, dot-files.
	must(os.WriteFile(filepath.Join(home, "state.db"), []byte("x"), 0o644))
	must(os.WriteFile(filepath.Join(home, ".memory.lock"), nil, 0o644))
	if changed(t, m) {
		t.Fatal("a write to state.db counted as a memory change")
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"append to MEMORY.md", func() {
			f, err := os.OpenFile(filepath.Join(home, "MEMORY.md"), os.O_APPEND|os.O_WRONLY, 0)
			must(err)
			f.WriteString("- fact\n")
			f.Close()
		}},
		{"new log", func() { must(os.WriteFile(filepath.Join(home, "logs", "2026-11-20.md"), []byte("# x\n"), 0o644)) }},
		{"editor's rename-and-replace", func() {
			tmp := filepath.Join(home, "logs", ".2026-11-20.md.swp")
			must(os.WriteFile(tmp, []byte("# y\n"), 0o644))
			must(os.Rename(tmp, filepath.Join(home, "logs", "2026-11-20.md")))
		}},
		{"new subdirectory", func() { must(os.Mkdir(filepath.Join(home, "logs", "2025"), 0o755)) }},
		{"digests created", func() { must(os.Mkdir(filepath.Join(home, "digests"), 0o755)) }},
		{"digest written", func() {
			must(os.WriteFile(filepath.Join(home, "digests", "2026-W47.md"), []byte("# w\n"), 0o644))
		}},
		{"file in the new subdirectory", func() {
			must(os.WriteFile(filepath.Join(home, "logs", "2025", "2025-01-01.md"), []byte("# z\n"), 0o644))
		}},
		{"delete", func() { must(os.Remove(filepath.Join(home, "logs", "2026-11-20.md"))) }},
		{"logs removed", func() { must(os.RemoveAll(filepath.Join(home, "logs"))) }},
		{"logs made again", func() { must(os.Mkdir(filepath.Join(home, "logs"), 0o755)) }},
		{"file in the new logs", func() { must(os.WriteFile(filepath.Join(home, "logs", "a.md"), []byte("a"), 0o644)) }},
	}
	for _, s := range steps {
		s.do()
		if !changed(t, m) {
			t.Errorf("%s: not seen", s.name)
		}
		if changed(t, m) {
			t.Errorf("%s: reported twice", s.name)
		}
	}
}

// Links point at what inotify does not watch: the monitor then always says
// "changed", and the caller walks the files as it would without it.
func TestMonitorIsBlindWithSymlinks(t *testing.T) {
	home := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(home, "logs", "old")); err != nil {
		t.Fatal(err)
	}
	m, err := NewMonitor(home)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := 0; i < 3; i++ {
		if !changed(t, m) {
			t.Fatalf("call %d: a monitor with a symlink in the tree claimed nothing changed", i)
		}
	}
}

// logs/ itself a link (to a folder inside the workspace, which the index
// follows): its notes raise no event where the monitor watches, so it must
// not claim nothing changed.
func TestMonitorIsBlindWithLinkedLogs(t *testing.T) {
	home := t.TempDir()
	journal := filepath.Join(home, "journal")
	if err := os.Mkdir(journal, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(journal, filepath.Join(home, "logs")); err != nil {
		t.Fatal(err)
	}
	m, err := NewMonitor(home)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	changed(t, m) // the first answer is always "changed"
	if err := os.WriteFile(filepath.Join(journal, "2026-11-22.md"), []byte("# 2026-11-22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !changed(t, m) {
		t.Fatal("a note written through the logs/ link went unnoticed")
	}
}

// Changes wakes a process that reacts to changes (memory watch): a note in
// a logs/ directory made after the monitor started, and MEMORY.md, each
// signal; files that are not memory do not, so the only signal after them
// is the note's. Waits are bounded backstops, not timings.
func TestMonitorSignalsChanges(t *testing.T) {
	home := t.TempDir()
	m, err := NewMonitor(home)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	changed(t, m) // the first answer
	drain := func() {
		for {
			select {
			case <-m.Changes():
			default:
				return
			}
		}
	}
	wait := func(what string) {
		t.Helper()
		select {
		case <-m.Changes():
		case <-time.After(30 * time.Second):
			t.Fatalf("no change signalled for %s", what)
		}
	}
	drain()
	if err := os.WriteFile(filepath.Join(home, "state.db"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed(t, m) { // the round trip proves the state.db event was read
		t.Fatal("a database write counted as a memory change")
	}
	select {
	case <-m.Changes():
		t.Fatal("a database write was signalled")
	default:
	}
	if err := os.MkdirAll(filepath.Join(home, "logs", "2026"), 0o755); err != nil {
		t.Fatal(err)
	}
	wait("a new logs/ tree")
	changed(t, m)
	drain()
	if err := os.WriteFile(filepath.Join(home, "logs", "2026", "2026-11-20.md"), []byte("# a note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("a note in a directory created after the monitor started")
	if err := os.WriteFile(filepath.Join(home, "MEMORY.md"), []byte("# Memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("MEMORY.md")
	if !changed(t, m) {
		t.Error("signalled, but Changed says nothing changed")
	}
}

// What the index never reads is never watched: a hidden directory in the
// logs (a .git, an import's staging folder), there before the monitor or
// made after it, raises no change when files are written inside it.
func TestMonitorSkipsHiddenDirectories(t *testing.T) {
	home := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(home, "logs", ".git", "objects"), 0o755))
	m, err := NewMonitor(home)
	must(err)
	defer m.Close()
	changed(t, m) // the first answer is always yes
	must(os.WriteFile(filepath.Join(home, "logs", ".git", "objects", "ab"), []byte("x"), 0o644))
	if changed(t, m) {
		t.Fatal("a write under logs/.git counted as a memory change")
	}
	must(os.Mkdir(filepath.Join(home, "logs", ".staging"), 0o755))
	changed(t, m) // its creation is an event in logs/
	must(os.WriteFile(filepath.Join(home, "logs", ".staging", "2026-11-20.md"), []byte("x"), 0o644))
	if changed(t, m) {
		t.Fatal("a write under a hidden directory made after the monitor counted as a memory change")
	}
	must(os.WriteFile(filepath.Join(home, "logs", "2026-11-20.md"), []byte("x"), 0o644))
	if !changed(t, m) {
		t.Fatal("a new log was not seen")
	}
}
