package reminders

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"agent/memory/printable"
)

// PendingTextRunes bounds a reminder's text in a PENDING line (the
// identity section keeps a few such lines: core/identity_sources.go).
const PendingTextRunes = 120

// Pending are the reminders due at or before now, most overdue first, one
// line each ("reminder 7, due Fri 2026-11-27 10:01 CET: text", the text cut
// to PendingTextRunes): every one of them, so that a caller that shows a
// few knows how many more there are. They depend only on state.db and on
// which reminders now has reached, so they stay byte-identical between
// changes. loc is the user's zone for the times shown.
func Pending(ctx context.Context, db *sql.DB, now time.Time, loc *time.Location) ([]string, error) {
	due, err := NewStore(db, nil).Due(ctx, now)
	if err != nil {
		return nil, err
	}
	items := make([]string, len(due))
	for i, r := range due {
		items[i] = fmt.Sprintf("reminder %d, due %s: %s", r.ID, Format(r.DueAt, loc), cut(r.Text, PendingTextRunes))
	}
	return items, nil
}

// ChatStartLine is the one stderr line a chat prints when it starts with
// reminders due (without the "agent: " prefix), or "" when none is.
func ChatStartLine(ctx context.Context, db *sql.DB, now time.Time, loc *time.Location) (string, error) {
	due, err := NewStore(db, nil).Due(ctx, now)
	if err != nil || len(due) == 0 {
		return "", err
	}
	texts := make([]string, 0, 3)
	for i, r := range due {
		if i == 3 {
			texts = append(texts, "…")
			break
		}
		texts = append(texts, fmt.Sprintf("%q (%s)", cut(r.Text, 60), describe(r, now, loc)))
	}
	noun := "reminder"
	if len(due) > 1 {
		noun = "reminders"
	}
	return fmt.Sprintf("%d %s due: %s; see: agent reminders", len(due), noun, strings.Join(texts, ", ")), nil
}

// cut shortens s to n runes on one line, marking the cut with "…".
func cut(s string, n int) string { return printable.Cut(printable.OneLine(s), n) }
