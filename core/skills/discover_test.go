package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSkill writes root/name/SKILL.md with the given frontmatter name.
func writeSkill(t *testing.T, root, dir, name, desc, body string) string {
	t.Helper()
	p := filepath.Join(root, dir, FileName)
	writeT(t, p, "---\nname: "+name+"\ndescription: "+desc+"\n---\n"+body)
	return p
}

func writeT(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRoots(t *testing.T) {
	t.Setenv("HOME", "/home/ana")
	got := Roots("/ws", " ~/.agents/skills::/ws/skills:rel:/x:/x:~")
	cwd, _ := os.Getwd()
	want := []Root{{"/ws/skills", true}, {"/home/ana/.agents/skills", false}, {filepath.Join(cwd, "rel"), false}, {"/x", false}, {"/home/ana", false}}
	if len(got) != len(want) {
		t.Fatalf("Roots = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Roots[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	t.Setenv(PathEnv, "/a:/b")
	if r := DefaultRoots("/ws"); len(r) != 3 || r[2].Dir != "/b" {
		t.Fatalf("DefaultRoots = %v", r)
	}
}

func TestDiscoverShadowsAndReports(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "ws")
	ws := filepath.Join(home, Dir)
	ext1, ext2 := filepath.Join(dir, "agents"), filepath.Join(dir, "claude")
	writeSkill(t, ws, "pdf", "pdf", "Mine - fill PDF forms", "ws body\n")
	writeSkill(t, ext1, "pdf", "pdf", "Theirs - fill PDF forms", "ext body\n")
	writeSkill(t, ext1, "tidy", "tidy", "Tidy the inbox", "")
	writeSkill(t, ext2, "tidy", "tidy", "Another tidy", "")
	writeSkill(t, ext2, "bad", "Bad", "upper case", "")
	writeSkill(t, ws, "mismatch", "other", "d", "")
	// An invalid workspace skill does not hide a valid one elsewhere.
	writeT(t, filepath.Join(ws, "notes", FileName), "---\nname: notes\n---\n")
	writeSkill(t, ext2, "notes", "notes", "Take notes", "")
	// Not skills: a file, a directory without SKILL.md, a dot directory.
	writeT(t, filepath.Join(ext1, "README.md"), "hi")
	writeT(t, filepath.Join(ext1, "empty", "x.txt"), "hi")
	writeSkill(t, ext1, ".hidden", ".hidden", "d", "")
	// A skill directory may be a link (kept in dotfiles, say).
	writeSkill(t, filepath.Join(dir, "dotfiles"), "linked", "linked", "Linked in", "")
	if err := os.Symlink(filepath.Join(dir, "dotfiles", "linked"), filepath.Join(ext1, "linked")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PathEnv, ext1+":"+filepath.Join(dir, "missing")+":"+ext2)

	c := Discover(DefaultRoots(home))
	var got []string
	for _, s := range c.Skills {
		got = append(got, s.Name+"="+s.Description)
	}
	if strings.Join(got, "|") != "linked=Linked in|notes=Take notes|pdf=Mine - fill PDF forms|tidy=Tidy the inbox" {
		t.Fatalf("skills = %v", got)
	}
	if !c.Skills[2].Workspace || c.Skills[3].Workspace || c.Skills[2].Dir != filepath.Join(ws, "pdf") {
		t.Fatalf("pdf = %+v, tidy = %+v", c.Skills[2], c.Skills[3])
	}
	if len(c.Shadowed) != 2 || c.Shadowed[0].Dir != filepath.Join(ext1, "pdf") || c.Shadowed[0].By != filepath.Join(ws, "pdf") ||
		c.Shadowed[1].Dir != filepath.Join(ext2, "tidy") || c.Shadowed[1].By != filepath.Join(ext1, "tidy") {
		t.Fatalf("shadowed = %+v", c.Shadowed)
	}
	var bad []string
	for _, p := range c.Invalid {
		bad = append(bad, p.Name+": "+p.Reason)
	}
	want := []string{
		`mismatch: name "other" does not match the directory name "mismatch"`,
		"notes: the frontmatter has no description",
		`bad: skill name "Bad": only lowercase letters, digits and hyphens are allowed`,
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Fatalf("invalid =\n%s\nwant\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
	if c.Invalid[0].Path != filepath.Join(ws, "mismatch", FileName) {
		t.Fatalf("invalid path %q", c.Invalid[0].Path)
	}

	if s, err := c.Find("tidy"); err != nil || s.Dir != filepath.Join(ext1, "tidy") {
		t.Fatalf("Find(tidy) = %+v, %v", s, err)
	}
	if _, err := c.Find("mismatch"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "is invalid: name") {
		t.Fatalf("Find(mismatch) = %v", err)
	}
	if _, err := c.Find("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find(nope) = %v", err)
	}
}

func TestDiscoverUnreadableRootIsAProblem(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "file")
	writeT(t, f, "not a directory")
	c := Discover([]Root{{Dir: filepath.Join(dir, "none")}, {Dir: f}})
	if len(c.Skills) != 0 || len(c.Invalid) != 1 || c.Invalid[0].Path != f || !strings.Contains(c.Invalid[0].Reason, "not a directory") {
		t.Fatalf("Discover = %+v", c)
	}
}
