package memory

import "testing"

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
