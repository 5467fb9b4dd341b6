package core

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"agent/index"
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
	// The notes are the ones the index reads, listed by its own walk:
	// MEMORY.md, the logs, digests and imports, and the notes folders added
	// with agent memory sources (hand-written, never redacted on the way in;
	// the index and the prompt get markers, the files keep the values).
	notes, err := index.Notes(home)
	if err != nil {
		c.Detail, c.Fix = "cannot list the notes: "+err.Error(), "fix or remove "+memory.SourcesFile
		return c
	}
	files := []index.NoteFile{{Rel: SoulFile, Path: filepath.Join(home, SoulFile)}}
	skills, _ := filepath.Glob(filepath.Join(home, "skills", "*", "SKILL.md"))
	sort.Strings(skills)
	for _, p := range skills {
		if rel, err := filepath.Rel(home, p); err == nil {
			files = append(files, index.NoteFile{Rel: filepath.ToSlash(rel), Path: p})
		}
	}
	files = append(files, notes...)
	var found []string
	for _, f := range files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			continue // missing or unreadable: the file's own line says so
		}
		text := string(b)
		for _, s := range secrets.Find(text) {
			line := strings.Count(text[:s.Start], "\n") + 1
			found = append(found, fmt.Sprintf("%s:%d %s", f.Rel, line, s.Kind))
		}
	}
	where := "MEMORY.md, SOUL.md, the logs, the digests, the skills and the imports"
	if sources, _ := memory.LoadSources(home); len(sources) > 0 {
		where = "MEMORY.md, SOUL.md, the logs, the digests, the skills, the imports and the notes folders"
	}
	if len(found) == 0 {
		c.OK, c.Detail = true, "none found in "+where
		return c
	}
	shown := found
	if len(shown) > doctorSecretsShown {
		shown = append(shown[:doctorSecretsShown:doctorSecretsShown], fmt.Sprintf("and %d more", len(found)-doctorSecretsShown))
	}
	c.Detail = fmt.Sprintf("%d found (values not shown): %s", len(found), strings.Join(shown, "; "))
	c.Fix = "remove each from the line named, with an editor, then rotate it: it sat on disk in plain text (the index and the prompts hold its marker)"
	return c
}
