package core

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"agent/memory/secrets"
)

// doctorSecretsShown bounds the places the secrets line names.
const doctorSecretsShown = 5

// doctorSecrets looks for secrets in the memory files — MEMORY.md, SOUL.md,
// the daily logs, the workspace's skills and imported conversations — written before they were
// redacted on the way in, or by an editor. It names each by file, line and
// kind, never its value, and changes nothing: the files are the user's.
func doctorSecrets(home string) DoctorCheck {
	c := DoctorCheck{Name: "secrets"}
	files := []string{MemoryFile, SoulFile}
	for _, pattern := range []string{filepath.Join(LogsDir, "*.md"), filepath.Join("skills", "*", "SKILL.md")} {
		m, _ := filepath.Glob(filepath.Join(home, pattern))
		sort.Strings(m)
		for _, p := range m {
			if rel, err := filepath.Rel(home, p); err == nil {
				files = append(files, rel)
			}
		}
	}
	// Imported conversations (imports/ORIGIN/YEAR/…md), not the hidden
	// staging folders of an import under way.
	_ = filepath.WalkDir(filepath.Join(home, "imports"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && strings.HasPrefix(d.Name(), ".") && d.Name() != "imports":
			return fs.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".md"):
			if rel, err := filepath.Rel(home, p); err == nil {
				files = append(files, rel)
			}
		}
		return nil
	})
	var found []string
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(home, rel))
		if err != nil {
			continue // missing or unreadable: the file's own line says so
		}
		text := string(b)
		for _, f := range secrets.Find(text) {
			line := strings.Count(text[:f.Start], "\n") + 1
			found = append(found, fmt.Sprintf("%s:%d %s", filepath.ToSlash(rel), line, f.Kind))
		}
	}
	if len(found) == 0 {
		c.OK, c.Detail = true, "none found in MEMORY.md, SOUL.md, the logs, the skills and the imports"
		return c
	}
	shown := found
	if len(shown) > doctorSecretsShown {
		shown = append(shown[:doctorSecretsShown:doctorSecretsShown], fmt.Sprintf("and %d more", len(found)-doctorSecretsShown))
	}
	c.Detail = fmt.Sprintf("%d found (values not shown): %s", len(found), strings.Join(shown, "; "))
	c.Fix = "remove each from the line named, with an editor, then rotate it (it was on disk and in the index): agent memory reindex"
	return c
}
