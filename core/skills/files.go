package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"agent/memory/printable"
)

// Caps on what the model reads from a skill.
const (
	// MaxReadBytes is the most one skill_read returns: about
	// 2,700 tokens, room left in a default 8k context. Longer text is cut at
	// a line and the cut says where to continue.
	MaxReadBytes = 8 << 10
	// MaxResourceBytes is the largest resource skill_read opens at all.
	MaxResourceBytes = 1 << 20
	// maxListedFiles bounds skill_read(name)'s list of resources.
	maxListedFiles = 200
)

// Files lists the skill's resources (every regular file but SKILL.md, and
// links that stay inside the directory), as slash paths relative to it,
// sorted; names starting with a dot are left out. More than 200 are cut,
// and the second result says how many were left out.
func Files(s Skill) ([]string, int, error) {
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return nil, 0, fmt.Errorf("skill %s: %w", s.Name, err)
	}
	defer root.Close()
	var out []string
	more := 0
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is left out, not fatal
		}
		if p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || p == FileName {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// os.Root refuses a link that leads outside, and that is the test.
			if st, err := root.Stat(p); err != nil || !st.Mode().IsRegular() || hiddenTarget(s, p) {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		if len(out) == maxListedFiles {
			more++
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("skill %s: list files: %w", s.Name, err)
	}
	return out, more, nil
}

// Text is a slice of a skill's file as the model gets it.
type Text struct {
	Path               string // relative to the skill directory
	Size               int    // of the whole file, bytes
	Offset             int    // where Text starts, bytes
	StartLine, EndLine int
	Text               string
	// Next is the offset to continue from, 0 when Text reaches the end.
	Next int
}

// Read reads a resource of s, confined to its directory: an absolute path,
// "..", or a link leading outside is refused (os.Root), as are directories,
// binary files and files over MaxResourceBytes. It returns at most
// MaxReadBytes from offset, cut at a line.
func Read(s Skill, path string, offset int) (Text, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return Text{}, invalidf("empty path: name a file of skill %s (skill_read(name) lists them)", s.Name)
	}
	if hidden(path) || hiddenTarget(s, path) {
		return Text{}, invalidf("skill %s: %q is hidden (a name starting with a dot); skill_read opens only the files it lists for the skill", s.Name, printable.OneLine(path))
	}
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return Text{}, fmt.Errorf("skill %s: %w", s.Name, err)
	}
	defer root.Close()
	f, err := root.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Text{}, notFoundf("skill %s has no file %q (skill_read(name) lists them)", s.Name, printable.OneLine(path))
		}
		return Text{}, invalidf("skill %s: cannot read %q: %s; only files inside the skill's directory can be read", s.Name, printable.OneLine(path), pathErr(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Text{}, fmt.Errorf("skill %s: %s: %w", s.Name, path, err)
	}
	if !st.Mode().IsRegular() {
		return Text{}, invalidf("skill %s: %q is not a file", s.Name, printable.OneLine(path))
	}
	if st.Size() > MaxResourceBytes {
		return Text{}, invalidf("skill %s: %q is %d bytes; skill_read opens files up to %d", s.Name, printable.OneLine(path), st.Size(), MaxResourceBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxResourceBytes+1))
	if err != nil {
		return Text{}, fmt.Errorf("skill %s: %s: %w", s.Name, path, err)
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return Text{}, invalidf("skill %s: %q is not text (%d bytes)", s.Name, printable.OneLine(path), len(data))
	}
	t, err := window(string(data), offset)
	if err != nil {
		return Text{}, invalidf("skill %s: %q: %v", s.Name, printable.OneLine(path), err)
	}
	t.Path = path
	return t, nil
}

// hidden reports whether a part of path, as written or once cleaned, starts
// with a dot: .env, .git/config, reference/../.env. Files leaves such names
// out, and what it does not list must not be readable either.
func hidden(path string) bool {
	for _, p := range []string{path, filepath.Clean(path)} {
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if strings.HasPrefix(part, ".") && part != "." && part != ".." {
				return true
			}
		}
	}
	return false
}

// hiddenTarget reports whether path, inside s's directory, is a link (or
// passes through one) that leads to a hidden name there: notes.md → .env.
// A path that does not resolve is left to os.Root to refuse.
func hiddenTarget(s Skill, path string) bool {
	dir, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return false
	}
	target, err := filepath.EvalSymlinks(filepath.Join(s.Dir, filepath.FromSlash(path)))
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(dir, target)
	return err == nil && hidden(rel)
}

// Body returns s's instructions as the model gets them: at most
// MaxReadBytes, cut at a line, with lines numbered as in SKILL.md.
func Body(s Skill) Text {
	t, _ := window(s.Body, 0)
	t.Path = FileName
	t.StartLine += s.BodyLine - 1
	t.EndLine += s.BodyLine - 1
	return t
}

// window takes at most MaxReadBytes of text from offset, ending at a line
// break when it has to cut.
func window(text string, offset int) (Text, error) {
	if offset < 0 || offset > len(text) {
		return Text{}, fmt.Errorf("offset %d is outside the file (%d bytes)", offset, len(text))
	}
	for offset > 0 && offset < len(text) && !utf8.RuneStart(text[offset]) {
		offset-- // never start inside a character
	}
	t := Text{Size: len(text), Offset: offset}
	rest := text[offset:]
	if len(rest) > MaxReadBytes {
		cut := strings.LastIndexByte(rest[:MaxReadBytes], '\n') + 1
		if cut == 0 { // one very long line: cut at a character
			cut = MaxReadBytes
			for cut > 0 && !utf8.RuneStart(rest[cut]) {
				cut--
			}
		}
		rest = rest[:cut]
		t.Next = offset + cut
	}
	t.Text = rest
	t.StartLine = strings.Count(text[:offset], "\n") + 1
	t.EndLine = t.StartLine + strings.Count(strings.TrimSuffix(rest, "\n"), "\n")
	return t, nil
}
