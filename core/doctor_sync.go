package core

import (
	"fmt"
	"strings"

	"agent/core/devsync"
)

// doctorSyncNotes fails the check of a file (MEMORY.md, SOUL.md) where a
// device sync kept both devices' versions of the same lines, naming each
// place: the merge never picks one, so the user must, and doctor is where
// they are told what is left to do.
func doctorSyncNotes(c DoctorCheck, home, name string) DoctorCheck {
	if !c.OK {
		return c
	}
	notes := devsync.FindConflicts(home, []string{name})
	if len(notes) == 0 {
		return c
	}
	var at []string
	for _, n := range notes {
		at = append(at, fmt.Sprintf("%s:%d", n.Path, n.Line))
	}
	c.OK = false
	c.Detail = fmt.Sprintf("%s; both devices changed the same lines, both versions kept at %s", c.Detail, strings.Join(at, ", "))
	c.Fix = "keep the right version at each place named and delete the sync notes around it"
	return c
}
