package main

import (
	"fmt"
	"testing"

	"agent/core/forget"
	"agent/core/importer"
	"agent/core/jobs"
	"agent/core/reminders"
	"agent/core/skills"
	"agent/index"
	"agent/memory"
	"agent/profile"
	"agent/soul"
	"agent/soul/revisions"
)

// Every package's ErrInvalid is a usage error and its ErrNotFound exit 3,
// through the one pair of rows exit.go keeps for them.
func TestEveryPackagesSentinelsMapToTheirExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{profile.ErrInvalid, exitUsage}, {profile.ErrNotFound, exitNotFound},
		{soul.ErrInvalid, exitUsage}, {soul.ErrNotFound, exitNotFound},
		{memory.ErrInvalid, exitUsage}, {memory.ErrNotFound, exitNotFound},
		{index.ErrInvalid, exitUsage}, {index.ErrNotFound, exitNotFound},
		{reminders.ErrInvalid, exitUsage}, {reminders.ErrNotFound, exitNotFound},
		{jobs.ErrInvalid, exitUsage}, {jobs.ErrNotFound, exitNotFound},
		{skills.ErrInvalid, exitUsage}, {skills.ErrNotFound, exitNotFound},
		{revisions.ErrInvalid, exitUsage},
		{importer.ErrInvalid, exitUsage}, {importer.ErrNotFound, exitNotFound},
		{forget.ErrInvalid, exitUsage}, {forget.ErrNotFound, exitNotFound},
	} {
		if got := exitCode(fmt.Errorf("doing it: %w", c.err)); got != c.code {
			t.Errorf("%v: exit %d, want %d", c.err, got, c.code)
		}
	}
	// A whole message of the kind, as revisions writes it, is the kind too.
	if _, err := revisions.CheckReason("\xff"); exitCode(err) != exitUsage {
		t.Errorf("revisions.CheckReason(\"\\xff\"): %v, exit %d, want %d", err, exitCode(err), exitUsage)
	}
}
