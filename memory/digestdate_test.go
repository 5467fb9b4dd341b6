package memory

import (
	"strings"
	"testing"
)

func TestLogDateDigests(t *testing.T) {
	for rel, want := range map[string]string{
		"digests/2026-W47.md": "2026-11-16",
		"digests/2026-W01.md": "2025-12-29", // ISO week 1 of 2026 starts in 2025
		"digests/2020-W53.md": "2020-12-28",
		"digests/2026-W53.md": "2026-12-28", // 2026 has 53 weeks
		"digests/2027-W53.md": "",           // 2027 has 52
		"digests/2026-W00.md": "",
		"digests/2026-11.md":  "2026-11-01",
		"digests/2026-13.md":  "",
		"digests/notes.md":    "",
		"digests/2026-11.txt": "",
		"logs/2026-W47.md":    "",
		"logs/2026-11-20.md":  "2026-11-20",
	} {
		if got := LogDate(rel); got != want {
			t.Errorf("LogDate(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestDigestChunkedByItem(t *testing.T) {
	src := "# Week 2026-W47 (2026-11-16 to 2026-11-22)\n\nDistilled by agent.\n\n- One (logs/2026-11-20.md:4)\n- Two (logs/2026-11-21.md:4)\n- Three (logs/2026-11-21.md:6)\n"
	chunks, err := ChunkFile("digests/2026-W47.md", []byte(src), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range chunks {
		if c.Date != "2026-11-16" {
			t.Errorf("chunk %q dated %q", c.Text, c.Date)
		}
		got = append(got, c.Text)
	}
	want := []string{"# Week 2026-W47 (2026-11-16 to 2026-11-22)\n\nDistilled by agent.", "- One (logs/2026-11-20.md:4)", "- Two (logs/2026-11-21.md:4)", "- Three (logs/2026-11-21.md:6)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("chunks %q, want %q", got, want)
	}
	// The same text as a log is one chunk.
	if chunks, _ := ChunkFile("logs/2026-11-20.md", []byte(src), ChunkOptions{}); len(chunks) != 1 {
		t.Errorf("a log was split into %d chunks", len(chunks))
	}
}
