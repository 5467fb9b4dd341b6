package core

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agent/memory"
)

// Secrets already in the memory files (written before redaction existed, or
// by an editor) are reported by file, line and kind, never by value; the
// files are left as they are.
func TestDoctorReportsSecretsWithoutPrintingThem(t *testing.T) {
	home := t.TempDir()
	ws, _, err := Init(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	if c := doctorSecrets(home); !c.OK || c.Detail != "none found in MEMORY.md, SOUL.md, the logs, the digests, the skills and the imports" {
		t.Errorf("clean workspace: %+v", c)
	}
	const tok, pw = "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", "hunter2xyz"
	mem := filepath.Join(home, MemoryFile)
	b, _ := os.ReadFile(mem)
	memText := string(b) + "- token " + tok + "\n"
	writeFileT(t, mem, memText)
	writeFileT(t, filepath.Join(home, "logs", "2026-11-20.md"), "# 2026-11-20\n\n### 09:00\n\ndb password="+pw+"\n")
	writeFileT(t, filepath.Join(home, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: d\n---\nuse "+tok+"\n")
	writeFileT(t, filepath.Join(home, "imports", "chatgpt", "2024", "2024-05-01-keys.md"), "# keys\n\n## You\n\nkey AKIAIOSFODNN7EXAMPLE\n")
	writeFileT(t, filepath.Join(home, "imports", ".import-7", "staged.md"), "key AKIAIOSFODNN7EXAMPLE\n")
	// A digest is model-written text distilled from the logs: a secret that
	// reached it is on disk and in the index just the same.
	writeFileT(t, filepath.Join(home, "digests", "2026-W47.md"), "# Week 47\n\n- deployed with "+tok+"\n")
	writeFileT(t, filepath.Join(home, "logs", ".2026-11-20.md.swp"), "db password="+pw+"\n")
	c := doctorSecrets(home)
	if c.OK || strings.Contains(c.Detail, tok) || strings.Contains(c.Detail, pw) || strings.Contains(c.Detail, "ghp_") || strings.Contains(c.Detail, ".import-7") {
		t.Fatalf("doctor: %+v", c)
	}
	n := strings.Count(memText, "\n")
	for _, want := range []string{"5 found (values not shown)", "digests/2026-W47.md:3 github token", "imports/chatgpt/2024/2024-05-01-keys.md:5 aws access key", "MEMORY.md:" + strconv.Itoa(n) + " github token", "logs/2026-11-20.md:5 password", "skills/deploy/SKILL.md:5 github token"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail %q lacks %q", c.Detail, want)
		}
	}
	if !strings.Contains(c.Fix, "rotate") {
		t.Errorf("fix %q", c.Fix)
	}
	if got, _ := os.ReadFile(mem); string(got) != memText {
		t.Error("doctor changed MEMORY.md")
	}
}

// A notes folder added with agent memory sources is read by the index, so
// doctor scans it too, as the index walks it (hidden folders skipped).
func TestDoctorScansNotesFolders(t *testing.T) {
	home := t.TempDir()
	ws, _, err := Init(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	vault := t.TempDir()
	key := "AKIA" + "Z7QW3RTY5UPL2KXM"
	writeFileT(t, filepath.Join(vault, "infra", "servers.md"), "# Servers\n\nbackup key "+key+"\n")
	writeFileT(t, filepath.Join(vault, ".obsidian", "cache.md"), "backup key "+key+"\n")
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		t.Fatal(err)
	}
	c := doctorSecrets(home)
	if c.OK || !strings.Contains(c.Detail, "1 found") || !strings.Contains(c.Detail, "vault:infra/servers.md:3 aws access key") || strings.Contains(c.Detail, key) {
		t.Errorf("doctor: %+v", c)
	}
	if b, _ := os.ReadFile(filepath.Join(vault, "infra", "servers.md")); !strings.Contains(string(b), key) {
		t.Error("doctor changed the note")
	}
}
