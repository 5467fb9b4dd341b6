package core

import (
	"context"
	"strings"
	"time"

	"agent/core/distill"
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
	return []IdentityBlock{{Section: SectionRecent, Lines: lines}}, nil
}
