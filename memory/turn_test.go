package memory

import (
	"strings"
	"testing"
)

// A logged turn is found again by its message's first line, whatever the
// message's surrounding space or later lines; another message's probe does
// not match it.
func TestTurnProbeFindsItsEntry(t *testing.T) {
	entry := TurnEntry("  my locker code is 4417\nlocker 38  ", "Atlas", " Noted. ")
	if want := "**User:** my locker code is 4417\nlocker 38\n\n**Atlas:** Noted."; entry != want {
		t.Fatalf("entry %q, want %q", entry, want)
	}
	if p := TurnProbe("\n my locker code is 4417 \nsomething else"); !strings.Contains(entry, p) {
		t.Errorf("probe %q not in %q", p, entry)
	}
	if p := TurnProbe("Noted."); strings.Contains(entry, p) {
		t.Errorf("a reply's words matched as the user's: %q", p)
	}
}
