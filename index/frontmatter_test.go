package index

import (
	"testing"

	"agent/memory"
)

// Front matter counts (issue 46): a note's title, tags and aliases are
// searchable, its date dates it, and a chunk without a heading is cited by
// the note's title (front matter, "# title", or file name).
func TestFrontMatterSearchableAndTitles(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	vault := t.TempDir()
	write(t, vault, "trips/lisbon.md", "---\ntitle: Lisbon trip\ntags: [travel, portugal]\naliases: [LX weekend]\ndate: 2026-10-10\n---\nFlights booked, hotel near Alfama.\n")
	write(t, vault, "ideas.md", "Buy a kayak someday.\n")
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		t.Fatal(err)
	}
	ix, _ := open(t, home)
	for _, tc := range []struct{ query, heading string }{
		{"portugal", "Lisbon trip"},
		{"LX weekend", "Lisbon trip"},
		{"lisbon trip", "Lisbon trip"},
		{"alfama", "Lisbon trip"},
	} {
		hits := search(t, ix, tc.query, SearchOptions{})
		if len(hits) == 0 || hits[0].Path != "vault:trips/lisbon.md" || hits[0].Heading != tc.heading || hits[0].Date != "2026-10-10" {
			t.Errorf("%q: %+v, want vault:trips/lisbon.md › %s of 2026-10-10", tc.query, hits, tc.heading)
		}
	}
	if hits := search(t, ix, "kayak", SearchOptions{}); len(hits) != 1 || hits[0].Heading != "ideas" {
		t.Errorf("kayak: %+v, want the note cited by its file name", hits)
	}
	// The note's front matter date is its time.
	if hits := search(t, ix, "what did I plan in October", SearchOptions{Now: saturday}); len(hits) == 0 || hits[0].Path != "vault:trips/lisbon.md" {
		t.Errorf("in October: %+v, want the note dated 2026-10-10", hits)
	}
}
