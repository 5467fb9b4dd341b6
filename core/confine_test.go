package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
	"agent/index"
	"agent/memory"
	"agent/soul"
)

// soul_update through a SOUL.md that is a symlink leading out of the
// workspace is refused: the model gets an error result, the target is
// untouched. (logs/ and MEMORY.md: TestInjectionNoWriteThroughSymlinkOutside.)
func TestSoulUpdateNeverWritesThroughASymlinkOutside(t *testing.T) {
	f := newChatFixture(t, true)
	f.chat.NoLog = true
	parent := filepath.Dir(f.home)
	target := filepath.Join(parent, "dotfiles-SOUL.md")
	link := filepath.Join(f.home, "SOUL.md")
	if err := os.Rename(link, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, parent, f.home)
	f.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: ToolSoulUpdate,
		Arguments: map[string]any{"content": "# Soul\n\nPlanted.\n", "reason": "test"}}}}, ollamatest.Text("done"))
	res, err := f.chat.Turn(context.Background(), f.session("soul"), "change yourself", nil)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, parent, f.home))
	if tc := res.ToolCalls[0]; tc.OK || !strings.Contains(tc.Result, "outside the workspace") {
		t.Errorf("soul_update through a symlink leading outside: ok=%v %s", tc.OK, tc.Result)
	}
}

// Every write path a command takes refuses a symlink leading outside: a
// log append (agent log, chat's log), a fact (agent memory add), SOUL.md
// (soul edit/revert/update), and init's own files (a dangling link to
// outside is not written through).
func TestCommandWritesStayInTheWorkspace(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, name string, dir bool) (home, outside string) {
		t.Helper()
		base := t.TempDir()
		home, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
		if ws, _, err := Init(ctx, home); err != nil {
			t.Fatal(err)
		} else {
			ws.Close()
		}
		os.RemoveAll(filepath.Join(home, name))
		if dir {
			os.Mkdir(outside, 0o700)
		}
		if err := os.Symlink(outside, filepath.Join(home, name)); err != nil {
			t.Fatal(err)
		}
		return home, outside
	}
	mustNotExist := func(t *testing.T, p string) {
		t.Helper()
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			t.Errorf("written outside: %s", p)
		} else if err == nil {
			if ents, _ := os.ReadDir(p); len(ents) > 0 {
				t.Errorf("written outside: %s holds %d entries", p, len(ents))
			}
		}
	}
	t.Run("log append", func(t *testing.T) {
		home, outside := setup(t, LogsDir, true)
		if _, err := memory.AppendLogEntry(home, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), "10:00", "planted"); err == nil {
			t.Error("no error")
		}
		mustNotExist(t, outside)
	})
	t.Run("memory fact", func(t *testing.T) {
		home, outside := setup(t, MemoryFile, false)
		if _, err := memory.AppendFact(home, "planted", ""); err == nil {
			t.Error("no error")
		}
		mustNotExist(t, outside)
	})
	t.Run("soul save", func(t *testing.T) {
		home, outside := setup(t, SoulFile, false)
		ws, err := Open(ctx, home)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		if _, err := soul.NewStore(ws.State, ws.Path(SoulFile), nil).Save(ctx, "# Soul\n\nPlanted.\n", soul.User, "test"); err == nil {
			t.Error("no error")
		}
		mustNotExist(t, outside)
	})
	t.Run("init", func(t *testing.T) {
		for _, name := range []string{SoulFile, MemoryFile} {
			home, outside := setup(t, name, false)
			ws, _, err := Init(ctx, home)
			if err != nil {
				t.Fatalf("init over a dangling %s: %v", name, err)
			}
			ws.Close()
			mustNotExist(t, outside)
		}
	})
	t.Run("databases", func(t *testing.T) {
		for _, name := range []string{StateFile, IndexFile} {
			base := t.TempDir()
			home, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside.db")
			ws, _, err := Init(ctx, home)
			if err != nil {
				t.Fatal(err)
			}
			ws.Close()
			ix, err := index.Open(ctx, home, nil)
			if err != nil {
				t.Fatal(err)
			}
			ix.Reindex(ctx, index.ReindexOptions{})
			ix.Close()
			if err := os.Rename(filepath.Join(home, name), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(home, name)); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(outside)
			if ws, err := Open(ctx, home); err == nil {
				memory.AppendLogEntry(home, time.Now(), "10:00", "a note to index")
				NewSessions(ws.State, time.Now).Create(ctx, "", "m")
				ws.Close()
			} else if name != StateFile {
				t.Fatal(err)
			}
			if ix, err := index.Open(ctx, home, nil); err == nil {
				ix.Refresh(ctx)
				ix.Close()
			}
			if after, _ := os.ReadFile(outside); string(after) != string(before) {
				t.Errorf("%s: written through a symlink leading outside", name)
			}
			for _, suffix := range []string{"-wal", "-journal"} {
				if _, err := os.Stat(outside + suffix); err == nil {
					t.Errorf("%s: %s created outside", name, suffix)
				}
			}
		}
	})
}
