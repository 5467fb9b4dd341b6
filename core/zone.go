package core

import (
	"fmt"
	"time"
)

// UserZone resolves a user.timezone value: "" is the machine's local zone,
// named "". A stored value that no longer loads (the profile validates on
// set, so only a hand-edited state.db or a changed tzdata gets here) is the
// local zone too, with a warning that says the fix: a note's date matters
// less than the note. The one place the zone is resolved, for chat, log,
// distill and the rest.
func UserZone(name string, warn func(string)) (*time.Location, string) {
	if name == "" {
		return time.Local, ""
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		if warn != nil {
			warn(fmt.Sprintf("user.timezone %q is not a known time zone; using local time (fix: agent profile set user.timezone Area/City)", name))
		}
		return time.Local, ""
	}
	return loc, name
}
