package core

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"agent/core/distill"
	"agent/memory"
	"agent/memory/secrets"
)

// doctorSecretsShown bounds the places the secrets line names.
const doctorSecretsShown = 5

// doctorSecrets looks for secrets in the memory files — MEMORY.md, SOUL.md,
// the daily logs, the digests distilled from them, the workspace's skills and
// imported conversations — written before they were redacted on the way in,
// by the model (a digest is model-written) or by an editor. It names each by
// file, line and kind, never its value, and changes nothing: the files are
// the user's.
func doctorSecrets(home string) DoctorCheck {
	c := DoctorCheck{Name: "secrets"}
	files := []string{MemoryFile, SoulFile}
	skills, _ := filepath.Glob(filepath.Join(home, "skills", "*", "SKILL.md"))
	sort.Strings(skills)
	for _, p := range skills {
		if rel, err := filepath.Rel(home, p); err == nil {
			files = append(files, rel)
		}
	}
	// The note folders the index covers, walked as it walks them: every .md
	// below, hidden names skipped (editors' temp files, the staging folders
	// of an import under way).
	for _, dir := range []string{LogsDir, distill.DigestsDir, memory.ImportsDir} {
		files = append(files, noteFiles(home, dir)...)
	}
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
		c.OK, c.Detail = true, "none found in MEMORY.md, SOUL.md, the logs, the digests, the skills and the imports"
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

// noteFiles lists the .md files below the workspace folder dir, relative to
// the workspace, in walk order; a symlinked folder is followed, as the index
// follows it.
func noteFiles(home, dir string) []string {
	root, err := filepath.EvalSymlinks(filepath.Join(home, dir))
	if err != nil {
		return nil // missing: nothing to scan
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case p != root && strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return fs.SkipDir
			}
		case !d.IsDir() && strings.HasSuffix(p, ".md"):
			if rel, err := filepath.Rel(root, p); err == nil {
				files = append(files, filepath.Join(dir, rel))
			}
		}
		return nil
	})
	return files
}
