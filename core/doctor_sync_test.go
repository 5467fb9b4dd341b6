package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core"
	"agent/core/devsync"
)

// Where a sync kept both devices' versions of the same lines, doctor's
// MEMORY.md line fails and names the place.
func TestDoctorNamesBothVersionsKept(t *testing.T) {
	home := doctorHome(t)
	base := "# Memory\n\n## User Facts\n\n- lives in Lyon\n"
	r := devsync.Merge("MEMORY.md", []byte(base), []byte(strings.Replace(base, "Lyon", "Paris", 1)), []byte(strings.Replace(base, "Lyon", "Berlin", 1)))
	if r.Conflicts != 1 {
		t.Fatalf("merge: %d conflicts", r.Conflicts)
	}
	if err := os.WriteFile(filepath.Join(home, core.MemoryFile), r.Data, 0o600); err != nil {
		t.Fatal(err)
	}
	doctorReindex(t, home)
	rep := core.Doctor(context.Background(), home, "llama3.2", nil)
	c := doctorCheckNamed(t, rep, core.MemoryFile)
	if c.OK || !strings.Contains(c.Detail, "MEMORY.md:5") || c.Fix == "" {
		t.Errorf("MEMORY.md check = %+v, want a failure naming MEMORY.md:5", c)
	}
	if c := doctorCheckNamed(t, rep, core.SoulFile); !c.OK {
		t.Errorf("SOUL.md check = %+v", c)
	}
}
