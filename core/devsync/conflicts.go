package devsync

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// Conflict is a place where a merge kept both devices' versions: the file
// (a slash path in the workspace) and the 1-based line of the note.
type Conflict struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

// FindConflicts lists the merge notes left in the markdown files rels of
// home; with rels nil, in the files a section merge writes (MEMORY.md,
// SOUL.md, the skills and the digests).
func FindConflicts(home string, rels []string) []Conflict {
	if rels == nil {
		rels = []string{"MEMORY.md", "SOUL.md"}
		for _, pattern := range []string{"skills/*/*.md", "digests/*.md", "digests/*/*.md"} {
			m, _ := filepath.Glob(filepath.Join(home, filepath.FromSlash(pattern)))
			for _, p := range m {
				if rel, err := filepath.Rel(home, p); err == nil {
					rels = append(rels, filepath.ToSlash(rel))
				}
			}
		}
	}
	var out []Conflict
	for _, rel := range rels {
		if !strings.HasSuffix(rel, ".md") {
			continue
		}
		f, err := os.Open(filepath.Join(home, filepath.FromSlash(rel)))
		if err != nil {
			continue // gone or unreadable: doctor's other checks say so
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if sc.Text() == ConflictMark {
				out = append(out, Conflict{Path: rel, Line: n})
			}
		}
		f.Close()
	}
	return out
}
