package confined

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// tree is a workspace and a directory beside it, "outside".
func tree(t *testing.T) (root, out string) {
	t.Helper()
	base := t.TempDir()
	root, out = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root, out, filepath.Join(root, "logs"), filepath.Join(root, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, out
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// ops are the writes, each asked to write rel.
var ops = map[string]func(root, rel string) error{
	"CreateSynced": func(root, rel string) error {
		return withRoot(root, func(r *os.Root) error { return CreateSynced(r, rel, []byte("planted\n")) })
	},
	"Append":  func(root, rel string) error { return Append(root, rel, []byte("planted\n")) },
	"Replace": func(root, rel string) error { return Replace(root, rel, []byte("planted\n"), nil) },
	"CreateNew": func(root, rel string) error {
		created, err := CreateNew(root, rel, []byte("planted\n"))
		if err == nil && !created {
			return ErrOutside // nothing written: as good as refused
		}
		return err
	},
}

// No write reaches outside the tree: not through a symlinked file (absolute
// or relative target, existing or dangling), a symlinked directory on the
// way, nor a plain "..".
func TestWritesNeverLeaveTheTree(t *testing.T) {
	cases := map[string]func(t *testing.T, root, out string) string{
		"file link, absolute": func(t *testing.T, root, out string) string {
			os.WriteFile(filepath.Join(out, "SOUL.md"), []byte("theirs\n"), 0o644)
			symlink(t, filepath.Join(out, "SOUL.md"), filepath.Join(root, "SOUL.md"))
			return "SOUL.md"
		},
		"file link, relative": func(t *testing.T, root, out string) string {
			os.WriteFile(filepath.Join(out, "MEMORY.md"), []byte("theirs\n"), 0o644)
			symlink(t, "../outside/MEMORY.md", filepath.Join(root, "MEMORY.md"))
			return "MEMORY.md"
		},
		"dangling file link": func(t *testing.T, root, out string) string {
			symlink(t, filepath.Join(out, "new.md"), filepath.Join(root, "SOUL.md"))
			return "SOUL.md"
		},
		"directory link": func(t *testing.T, root, out string) string {
			os.Remove(filepath.Join(root, "logs"))
			symlink(t, out, filepath.Join(root, "logs"))
			return "logs/2026-11-20.md"
		},
		"dot dot": func(t *testing.T, root, out string) string { return "../outside/x.md" },
	}
	for name, setup := range cases {
		for opName, op := range ops {
			t.Run(name+"/"+opName, func(t *testing.T) {
				root, out := tree(t)
				rel := setup(t, root, out)
				before := snapshot(t, out)
				err := op(root, rel)
				if err == nil {
					t.Errorf("%s %s: no error", opName, rel)
				}
				if after := snapshot(t, out); after != before {
					t.Errorf("%s %s changed the outside: %q -> %q", opName, rel, before, after)
				}
			})
		}
	}
	t.Run("Mkdir", func(t *testing.T) {
		root, out := tree(t)
		symlink(t, out, filepath.Join(root, "away"))
		if err := Mkdir(root, "away/logs", 0o700); err == nil {
			t.Error("Mkdir through a link leading outside: no error")
		}
		if _, err := os.Stat(filepath.Join(out, "logs")); err == nil {
			t.Error("Mkdir created a directory outside")
		}
	})
}

// A link that stays inside is followed, and survives: the file it names is
// the one written.
func TestLinksInsideAreFollowed(t *testing.T) {
	root, _ := tree(t)
	real := filepath.Join(root, "notes", "soul.md")
	os.WriteFile(real, []byte("old\n"), 0o640)
	symlink(t, "notes/soul.md", filepath.Join(root, "SOUL.md"))
	if err := Replace(root, "SOUL.md", []byte("new\n"), nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "SOUL.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link did not survive: %v %v", fi, err)
	}
	if got := read(t, real); got != "new\n" {
		t.Errorf("target = %q", got)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("permissions %v, want 0640 kept", fi.Mode().Perm())
	}
	symlink(t, "../notes", filepath.Join(root, "logs", "y"))
	if err := Append(root, "logs/y/a.md", []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(root, "notes", "a.md")); got != "x\n" {
		t.Errorf("append through an inside directory link: %q", got)
	}
	// Aborted just before the rename: the file is as it was, no temp left.
	if err := Replace(root, "SOUL.md", []byte("never\n"), func() bool { return false }); !errors.Is(err, ErrAborted) {
		t.Errorf("aborted Replace: %v", err)
	}
	if got := read(t, real); got != "new\n" {
		t.Errorf("after an aborted replace: %q", got)
	}
	if s := snapshot(t, filepath.Join(root, "notes")); s != "a.md=x\n;soul.md=new\n;" {
		t.Errorf("notes/ holds %q (a temp file left?)", s)
	}
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	s := ""
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			s += rel + "=" + read(t, p) + ";"
		}
		return nil
	})
	return s
}

// CreateSynced writes a new private file and never replaces one that is
// there.
func TestCreateSyncedNeverReplaces(t *testing.T) {
	root, _ := tree(t)
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := CreateSynced(r, "notes/a.md", []byte("first\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "notes", "a.md")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("created: %v %v", fi, err)
	}
	if err := CreateSynced(r, "notes/a.md", []byte("second\n")); !errors.Is(err, os.ErrExist) {
		t.Errorf("a second create: %v, want os.ErrExist", err)
	}
	if got := read(t, filepath.Join(root, "notes", "a.md")); got != "first\n" {
		t.Errorf("the file holds %q", got)
	}
}
