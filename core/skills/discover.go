package skills

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"agent/memory/printable"
)

// PathEnv names the variable listing extra skill directories,
// colon-separated, searched after the workspace's own.
const PathEnv = "AGENT_SKILLS_PATH"

// Dir is the workspace's skills directory, relative to its home.
const Dir = "skills"

// Root is one directory skills are looked for in.
type Root struct {
	Dir       string
	Workspace bool // <home>/skills: the one skill_save writes to
}

// Roots returns where skills are found: <home>/skills first, then each
// directory of pathList (AGENT_SKILLS_PATH: colon-separated; empty entries
// skipped, a leading ~ is the user's home, duplicates dropped).
func Roots(home, pathList string) []Root {
	ws := filepath.Join(home, Dir)
	roots := []Root{{Dir: ws, Workspace: true}}
	seen := map[string]bool{ws: true}
	for _, d := range strings.Split(pathList, ":") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if d == "~" || strings.HasPrefix(d, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				d = filepath.Join(h, strings.TrimPrefix(d, "~"))
			}
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if !seen[d] {
			seen[d] = true
			roots = append(roots, Root{Dir: d})
		}
	}
	return roots
}

// DefaultRoots is Roots with AGENT_SKILLS_PATH from the environment.
func DefaultRoots(home string) []Root { return Roots(home, os.Getenv(PathEnv)) }

// Problem is a skill (or a skills directory) that cannot be used, and why.
type Problem struct {
	Name   string // the directory's name; "" for a whole root
	Path   string
	Reason string
}

// Shadowed is a valid skill hidden by one of the same name found earlier.
type Shadowed struct {
	Skill
	By string // the directory of the skill that wins
}

// Catalog is everything discovery found: the usable skills sorted by name,
// those hidden by an earlier one of the same name, and the invalid ones.
type Catalog struct {
	Skills   []Skill
	Shadowed []Shadowed
	Invalid  []Problem
}

// Discover reads every root in order. A directory without SKILL.md is not a
// skill and is passed over, as are names starting with a dot; a missing
// root is simply empty. The first valid skill of a name wins (the
// workspace's, then AGENT_SKILLS_PATH's in order); an invalid one is
// reported and hides nothing. Discover never fails: what it cannot read is
// a Problem.
func Discover(roots []Root) Catalog {
	var c Catalog
	won := map[string]int{} // name -> index in c.Skills
	for _, root := range roots {
		entries, err := os.ReadDir(root.Dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			c.Invalid = append(c.Invalid, Problem{Path: root.Dir, Reason: "cannot read the directory: " + pathErr(err)})
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			dir := filepath.Join(root.Dir, e.Name())
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue // a file, or a dangling link: not a skill
			}
			s, err := load(dir, e.Name())
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				c.Invalid = append(c.Invalid, Problem{Name: e.Name(), Path: filepath.Join(dir, FileName), Reason: err.Error()})
				continue
			}
			s.Workspace = root.Workspace
			if i, ok := won[s.Name]; ok {
				c.Shadowed = append(c.Shadowed, Shadowed{Skill: s, By: c.Skills[i].Dir})
				continue
			}
			won[s.Name] = len(c.Skills)
			c.Skills = append(c.Skills, s)
		}
	}
	sort.SliceStable(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	return c
}

// load reads and parses dir/SKILL.md; fs.ErrNotExist when there is none.
func load(dir, name string) (Skill, error) {
	f, err := os.Open(filepath.Join(dir, FileName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Skill{}, err
		}
		return Skill{}, invalidf("cannot read %s: %s", FileName, pathErr(err))
	}
	defer f.Close()
	// One byte over the cap is enough to know it is too long.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return Skill{}, invalidf("cannot read %s: %s", FileName, pathErr(err))
	}
	s, err := Parse(name, data)
	if err != nil {
		return Skill{}, err
	}
	s.Dir = dir
	return s, nil
}

// Find returns the usable skill called name.
func (c Catalog) Find(name string) (Skill, error) {
	for _, s := range c.Skills {
		if s.Name == name {
			return s, nil
		}
	}
	for _, p := range c.Invalid {
		if p.Name == name {
			return Skill{}, invalidf("skill %s (%s) is invalid: %s", name, p.Path, p.Reason)
		}
	}
	return Skill{}, notFoundf("no skill named %q", printable.OneLine(name))
}

// pathErr is an error without the path the caller already shows.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
