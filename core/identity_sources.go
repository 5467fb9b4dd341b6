package core

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"agent/core/distill"
	"agent/core/jobs"
	"agent/core/reminders"
)

// recentDigestTokens is the share of the identity section (~400 tokens in
// all) given to the latest weekly digest's headlines.
const recentDigestTokens = 90

// digestIdentity shows, under Recent context, the latest weekly digest's
// headline items with their citations, and a distillation that is overdue.
// Both depend only on the digest files and the date, so the section stays
// the same between turns until a digest is written or the day changes.
type digestIdentity struct{ home string }

func (d digestIdentity) Identity(ctx context.Context, today time.Time) ([]IdentityBlock, error) {
	recent, err := distill.RecentLines(d.home, recentDigestTokens)
	if err != nil {
		return nil, err
	}
	overdue, err := distill.Overdue(d.home, today)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range append(recent, overdue...) {
		// Digest text came from the user's notes through a model: one line,
		// neutralised, like every quoted fact in the fixed prompt.
		lines = append(lines, oneLine(strings.TrimPrefix(strings.TrimSpace(l), "- "), 240))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []IdentityBlock{{Section: SectionRecent, Lines: lines, Short: []string{oneLine(lines[0], 100)},
		Quoted: &Quoted{Source: "digest", By: ByModel}}}, nil
}

// Shares of the identity section (~400 tokens in all) for what is pending
// and what is scheduled: a few lines each, then how many more and where.
const (
	identityReminders = 3
	identityJobs      = 3
)

// timeIdentity shows the reminders that are due (PENDING, most overdue
// first) and the enabled jobs with their schedules in words. Reminders
// change the section when one falls due or is done, jobs when one is added,
// changed or disabled: state, not the clock's every minute.
type timeIdentity struct{ db *sql.DB }

func (d timeIdentity) Identity(ctx context.Context, today time.Time) ([]IdentityBlock, error) {
	// today is in the user's zone already (the turn read it once).
	pending, err := reminders.Pending(ctx, d.db, today, today.Location())
	if err != nil {
		return nil, err
	}
	scheduled, err := jobs.Identity(ctx, d.db)
	if err != nil {
		return nil, err
	}
	var blocks []IdentityBlock
	if lines := identityLines(pending, identityReminders, 160, "agent reminders list"); len(lines) > 0 {
		blocks = append(blocks, IdentityBlock{Section: SectionPending, Lines: lines,
			Short:  identityLines(pending, 1, 80, "agent reminders list"),
			Quoted: &Quoted{Source: "reminders", By: ByModelOrUser}})
	}
	if lines := identityLines(scheduled, identityJobs, 160, "agent jobs list"); len(lines) > 0 {
		blocks = append(blocks, IdentityBlock{Section: SectionJobs, Lines: lines,
			Short: identityLines(scheduled, 1, 80, "agent jobs list")})
	}
	return blocks, nil
}

// identityLines keeps at most max of a capability's items, each one
// neutralised line of at most width characters (they hold the user's and
// the model's words), and says how many more there are and where to see
// them.
func identityLines(items []string, max, width int, more string) []string {
	var out []string
	for _, l := range items[:min(len(items), max)] {
		out = append(out, oneLine(l, width))
	}
	if len(items) > max {
		out = append(out, fmt.Sprintf("… and %d more (%s)", len(items)-max, more))
	}
	return out
}
