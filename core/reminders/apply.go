package reminders

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"agent/core/statedb"
	"agent/memory/printable"
)

// Value is a reminder as it travels between devices (core/journal): its
// whole user-visible state, so the last writer's is enough to rebuild it.
// It is the one definition of those fields; journal's trigger writes them
// with json_object under the same names (journal/migrations/0001_init.sql).
type Value struct {
	Text        string  `json:"text"`
	DueAt       string  `json:"due_at"`
	Status      string  `json:"status"`
	CreatedBy   string  `json:"created_by"`
	CreatedAt   string  `json:"created_at"`
	DeliveredAt *string `json:"delivered_at"`
}

// Incoming is a change to a reminder another device made.
type Incoming struct {
	UID   string // the reminder across devices (reminders.uid)
	Op    string // what the other device did: add, done, snooze, fired, …
	Value *Value // nil: deleted there
	// Wins says the change is newer than the one that set this device's
	// reminder; one that loses is merged (done and fired are kept) or
	// kept in the history.
	Wins bool
	From string // the history's command for a change applied: "sync from HOST"
	Lost string // the history's command for one that lost
}

// maxCreatedBy bounds who set a reminder ("user", "model (chat session
// NAME)").
const maxCreatedBy = 200

var validUID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// checkText is the rule for a reminder's text, here and at Add: trimmed,
// not empty, at most MaxTextRunes.
func checkText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", invalidf("empty reminder: nothing to remember")
	}
	if len(text) > utf8.UTFMax*MaxTextRunes || !utf8.ValidString(text) {
		return "", invalidf("reminder text is over %d characters or not UTF-8", MaxTextRunes)
	}
	if n := utf8.RuneCountInString(text); n > MaxTextRunes {
		return "", invalidf("reminder text is %d characters; at most %d", n, MaxTextRunes)
	}
	return text, nil
}

// check holds a reminder from elsewhere to what this device writes: the
// text as Add checks it, the times in the stored form, a known status, and
// a creator named on one printable line.
func (v *Value) check() error {
	text, err := checkText(v.Text)
	if err != nil {
		return err
	}
	v.Text = text
	for _, t := range []*string{&v.DueAt, &v.CreatedAt, v.DeliveredAt} {
		if t == nil {
			continue
		}
		at, err := parseStamp(*t)
		if err != nil || stamp(at) != *t {
			return invalidf("reminder time %q is not a UTC time in whole seconds", printable.Escape(*t))
		}
	}
	switch v.Status {
	case StatusPending, StatusDone, StatusRemoved:
	default:
		return invalidf("reminder status %q is none of pending, done, removed", printable.Escape(v.Status))
	}
	if v.CreatedBy == "" || !utf8.ValidString(v.CreatedBy) || utf8.RuneCountInString(v.CreatedBy) > maxCreatedBy || printable.Escape(v.CreatedBy) != v.CreatedBy ||
		strings.ContainsAny(v.CreatedBy, "\r\n\t") {
		return invalidf("reminder creator %q is not one printable line of at most %d characters", printable.Escape(v.CreatedBy), maxCreatedBy)
	}
	return nil
}

func (v Value) same(o Value) bool {
	return v.Text == o.Text && v.DueAt == o.DueAt && v.Status == o.Status &&
		(v.DeliveredAt == nil) == (o.DeliveredAt == nil)
}

// merge is the state of a reminder changed on two devices: the winner's,
// except that done or removed is the user's last word (a snooze from a
// device that had not heard it does not bring the reminder back), and that
// a reminder shown on either device for the same due time has fired: it is
// not shown again, and two devices that both showed it while apart leave
// one reminder, fired once.
func merge(local, in Value, inWins bool) Value {
	m, other := local, in
	if inWins {
		m, other = in, local
	}
	if m.Status == StatusPending && other.Status != StatusPending {
		m.Status = other.Status
	}
	if m.DeliveredAt == nil && other.DeliveredAt != nil && other.DueAt == m.DueAt {
		m.DeliveredAt = other.DeliveredAt
	}
	return m
}

// ApplyTx applies a change another device made to a reminder, in the
// replay's transaction tx, at now: checked as a reminder made here is
// (ErrInvalid, nothing written), then merged with this device's reminder
// and recorded in reminder_changes. It is the only code that writes a
// reminder from elsewhere.
func ApplyTx(ctx context.Context, tx statedb.Tx, in Incoming, now time.Time) error {
	if !validUID.MatchString(in.UID) {
		return invalidf("reminder id %q is not 32 hex digits", printable.Escape(in.UID))
	}
	if in.Value != nil {
		if err := in.Value.check(); err != nil {
			return err
		}
	}
	at := stamp(now)
	var id int64
	var local Value
	var delivered sql.NullString
	err := tx.QueryRowContext(ctx, qByUID, in.UID).Scan(&id, &local.Text, &local.DueAt, &local.Status,
		&local.CreatedBy, &local.CreatedAt, &delivered)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if delivered.Valid {
		local.DeliveredAt = &delivered.String
	}
	switch {
	case in.Value == nil && !found, in.Value != nil && !found && !in.Wins:
		return nil // already gone here, by a change at least as new
	case in.Value == nil && in.Wins:
		if _, err := tx.ExecContext(ctx, qDeleteChanges, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qDeleteReminder, id)
		return err
	case in.Value == nil:
		_, err := tx.ExecContext(ctx, qChange, id, "lost: delete", local.DueAt, nil, at, in.Lost)
		return err
	case !found:
		v := in.Value
		res, err := tx.ExecContext(ctx, qInsertTravelled, in.UID, v.Text, v.DueAt, v.Status, v.CreatedBy, v.CreatedAt,
			v.DeliveredAt, at)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, qChange, id, in.Op, nil, v.DueAt, at, in.From)
		return err
	}
	m := merge(local, *in.Value, in.Wins)
	if m.same(local) {
		if in.Wins {
			return nil
		}
		_, err := tx.ExecContext(ctx, qChange, id, "lost: "+in.Op, local.DueAt, in.Value.DueAt, at, in.Lost)
		return err
	}
	if _, err := tx.ExecContext(ctx, qUpdateTravelled, m.Text, m.DueAt, m.Status, m.DeliveredAt, at, id); err != nil {
		return err
	}
	action, command := in.Op, in.From
	if !in.Wins {
		action, command = "merge: "+in.Op, in.From+" (older, merged)"
	}
	_, err = tx.ExecContext(ctx, qChange, id, action, local.DueAt, m.DueAt, at, command)
	return err
}
