package core

import (
	"context"
	"fmt"
	"time"

	"agent/profile"
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

// WorkspaceZone is the user's zone as the workspace's profile names it,
// resolved silently (the commands that write by the date warn about a bad
// name; one that only shows a time falls back to local time). The zone in
// which every human-facing time is shown.
func WorkspaceZone(ctx context.Context, ws *Workspace) *time.Location {
	if ws == nil {
		return time.Local
	}
	tz, _, err := profile.NewStore(ws.State, time.Now).Get(ctx, "user.timezone")
	if err != nil {
		return time.Local
	}
	loc, _ := UserZone(tz, nil)
	return loc
}
