package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixtureSkill(t *testing.T) (Skill, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	writeSkill(t, root, "forms", "forms", "Fill forms", "See reference/fields.md.\n")
	sd := filepath.Join(root, "forms")
	writeT(t, filepath.Join(sd, "reference", "fields.md"), "# Fields\n\nname, date\n")
	writeT(t, filepath.Join(sd, "template.txt"), "Dear …\n")
	writeT(t, filepath.Join(sd, ".git", "config"), "x")
	writeT(t, filepath.Join(sd, "blob.bin"), "a\x00b")
	writeT(t, filepath.Join(dir, "secret.txt"), "TOP SECRET\n")
	for link, target := range map[string]string{
		"inside.md": "reference/fields.md", "outside.txt": filepath.Join(dir, "secret.txt"),
		"up.txt": "../../secret.txt", "etc": "/etc",
	} {
		if err := os.Symlink(target, filepath.Join(sd, link)); err != nil {
			t.Fatal(err)
		}
	}
	c := Discover([]Root{{Dir: root}})
	s, err := c.Find("forms")
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestFilesListsWhatStaysInside(t *testing.T) {
	s, _ := fixtureSkill(t)
	files, more, err := Files(s)
	if err != nil || more != 0 {
		t.Fatal(err, more)
	}
	if got := strings.Join(files, " "); got != "blob.bin inside.md reference/fields.md template.txt" {
		t.Fatalf("Files = %q", got)
	}
}

func TestReadIsConfined(t *testing.T) {
	s, dir := fixtureSkill(t)
	r, err := Read(s, "reference/fields.md", 0)
	if err != nil || r.Text != "# Fields\n\nname, date\n" || r.StartLine != 1 || r.EndLine != 3 || r.Next != 0 {
		t.Fatalf("Read = %+v, %v", r, err)
	}
	if r, err := Read(s, "inside.md", 0); err != nil || !strings.HasPrefix(r.Text, "# Fields") {
		t.Fatalf("Read through an inside link = %+v, %v", r, err)
	}
	for _, p := range []string{
		"../../secret.txt", "reference/../../../secret.txt", filepath.Join(dir, "secret.txt"), "/etc/passwd",
		"outside.txt", "up.txt", "etc/passwd",
	} {
		r, err := Read(s, p, 0)
		if !errors.Is(err, ErrInvalid) || strings.Contains(r.Text, "SECRET") {
			t.Errorf("Read(%q) = %+v, %v; want refused", p, r, err)
		} else if !strings.Contains(err.Error(), "only files inside the skill's directory") {
			t.Errorf("Read(%q) error %q does not say why", p, err)
		}
	}
	for p, want := range map[string]error{"": ErrInvalid, "reference": ErrInvalid, "blob.bin": ErrInvalid, "nope.md": ErrNotFound} {
		if _, err := Read(s, p, 0); !errors.Is(err, want) {
			t.Errorf("Read(%q) = %v, want %v", p, err, want)
		}
	}
}

func TestReadCutsAtALineAndContinues(t *testing.T) {
	s, _ := fixtureSkill(t)
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 200) // 20,000 bytes
	writeT(t, filepath.Join(s.Dir, "big.md"), big)
	var got strings.Builder
	off, calls, nextLine := 0, 0, 1
	for {
		r, err := Read(s, "big.md", off)
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if len(r.Text) > MaxReadBytes || !strings.HasSuffix(r.Text, "\n") || r.Size != len(big) || r.StartLine != nextLine {
			t.Fatalf("call %d: %d bytes, lines %d-%d, size %d", calls, len(r.Text), r.StartLine, r.EndLine, r.Size)
		}
		got.WriteString(r.Text)
		nextLine = r.EndLine + 1
		if r.Next == 0 {
			break
		}
		off = r.Next
	}
	if got.String() != big || calls != 3 {
		t.Fatalf("%d calls rejoined %d bytes of %d", calls, got.Len(), len(big))
	}
	if _, err := Read(s, "big.md", len(big)+1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("offset past the end = %v", err)
	}
	writeT(t, filepath.Join(s.Dir, "huge.md"), strings.Repeat("y", MaxResourceBytes+1))
	if _, err := Read(s, "huge.md", 0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "skill_read opens files up to 1048576") {
		t.Fatalf("huge = %v", err)
	}
}

// skill_read refuses what its listing hides: any path with a part that
// starts with a dot (.env, .git/config), however it is spelled.
func TestReadRefusesHiddenFiles(t *testing.T) {
	s, _ := fixtureSkill(t)
	writeT(t, filepath.Join(s.Dir, ".env"), "TOKEN=x\n")
	writeT(t, filepath.Join(s.Dir, "reference", ".notes.md"), "hidden\n")
	for _, p := range []string{".env", ".git/config", "./.env", "reference/.notes.md", "reference/../.env", ".git/../.env", " .env "} {
		r, err := Read(s, p, 0)
		if !errors.Is(err, ErrInvalid) || r.Text != "" {
			t.Errorf("Read(%q) = %q, %v; want ErrInvalid", p, r.Text, err)
		} else if !strings.Contains(err.Error(), "hidden") {
			t.Errorf("Read(%q): %v does not say why", p, err)
		}
	}
	if _, err := Read(s, "./template.txt", 0); err != nil {
		t.Errorf("a plain path spelled with ./ is refused: %v", err)
	}
	// A link with a plain name that leads to a hidden file is hidden too:
	// not listed, not read.
	for link, target := range map[string]string{"notes.md": ".env", "cfg.txt": ".git/config"} {
		if err := os.Symlink(target, filepath.Join(s.Dir, link)); err != nil {
			t.Fatal(err)
		}
		if r, err := Read(s, link, 0); !errors.Is(err, ErrInvalid) {
			t.Errorf("Read(%q → %s) = %q, %v; want ErrInvalid", link, target, r.Text, err)
		}
	}
	files, _, _ := Files(s)
	if got := strings.Join(files, " "); strings.Contains(got, "notes.md") || strings.Contains(got, "cfg.txt") {
		t.Errorf("Files lists links to hidden files: %s", got)
	}
}
