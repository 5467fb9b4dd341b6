// Package reminders keeps the user's reminders in state.db: a text and a due
// time, pending until the user marks it done. It reads times people write
// (parse.go), and says what is due for the identity section, the start of a
// chat and `agent jobs tick`. Every change is recorded in reminder_changes.
package reminders

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// MaxTextRunes bounds a reminder's text: it is shown in the identity section
// and on one stderr line.
const MaxTextRunes = 500

// Statuses of a reminder.
const (
	StatusPending = "pending"
	StatusDone    = "done"
	StatusRemoved = "removed"
)

// ByUser is the creator recorded for reminders the user set on the command
// line.
const ByUser = "user"

// Reminder is one row. DeliveredAt is nil until a tick has shown it.
type Reminder struct {
	ID          int64
	Text        string
	DueAt       time.Time
	Status      string
	CreatedBy   string
	CreatedAt   time.Time
	DeliveredAt *time.Time
}

// Store reads and writes reminders. The db must use immediate write
// transactions (core opens state.db so), so concurrent writers queue.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// NewStore returns a Store over state.db; now is the clock (time.Now if nil).
func NewStore(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// stamp is the one stored time format: UTC, whole seconds, so that text order
// is time order in SQL.
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

func parseStamp(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

// Add stores a pending reminder. The text must not be empty; due may be in
// the past only by less than a second (the caller checks "in the past"
// against the words the user typed, see Parse).
func (s *Store) Add(ctx context.Context, text string, due time.Time, createdBy string) (Reminder, error) {
	text, err := checkText(text)
	if err != nil {
		return Reminder{}, err
	}
	now := stamp(s.now())
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Reminder{}, fmt.Errorf("add reminder: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, qInsert, text, stamp(due), createdBy, now, now)
	if err != nil {
		return Reminder{}, fmt.Errorf("add reminder: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return Reminder{}, fmt.Errorf("add reminder: %w", err)
	}
	if _, err := tx.ExecContext(ctx, qChange, id, "add", nil, stamp(due), now, createdBy); err != nil {
		return Reminder{}, fmt.Errorf("add reminder: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Reminder{}, fmt.Errorf("add reminder: %w", err)
	}
	return s.Get(ctx, id)
}

// Get returns one reminder, whatever its status.
func (s *Store) Get(ctx context.Context, id int64) (Reminder, error) {
	rows, err := s.db.QueryContext(ctx, qGet, id)
	if err != nil {
		return Reminder{}, fmt.Errorf("read reminder %d: %w", id, err)
	}
	list, err := scanAll(rows)
	if err != nil {
		return Reminder{}, fmt.Errorf("read reminder %d: %w", id, err)
	}
	if len(list) == 0 {
		return Reminder{}, notFoundf("no reminder %d (see: agent reminders list)", id)
	}
	return list[0], nil
}

// Pending returns the pending reminders, most urgent (earliest due) first.
func (s *Store) Pending(ctx context.Context) ([]Reminder, error) {
	return s.query(ctx, qPending)
}

// All returns every reminder, done and removed ones too, by due time.
func (s *Store) All(ctx context.Context) ([]Reminder, error) {
	return s.query(ctx, qAll)
}

// Due returns the pending reminders due at or before now, most overdue first.
func (s *Store) Due(ctx context.Context, now time.Time) ([]Reminder, error) {
	return s.query(ctx, qDuePending, stamp(now))
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Reminder, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read reminders: %w", err)
	}
	list, err := scanAll(rows)
	if err != nil {
		return nil, fmt.Errorf("read reminders: %w", err)
	}
	return list, nil
}

func scanAll(rows *sql.Rows) ([]Reminder, error) {
	defer rows.Close()
	var out []Reminder
	for rows.Next() {
		var r Reminder
		var due, created string
		var delivered sql.NullString
		if err := rows.Scan(&r.ID, &r.Text, &due, &r.Status, &r.CreatedBy, &created, &delivered); err != nil {
			return nil, err
		}
		var err error
		if r.DueAt, err = parseStamp(due); err != nil {
			return nil, err
		}
		if r.CreatedAt, err = parseStamp(created); err != nil {
			return nil, err
		}
		if delivered.Valid {
			d, err := parseStamp(delivered.String)
			if err != nil {
				return nil, err
			}
			r.DeliveredAt = &d
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Done marks a pending reminder done.
func (s *Store) Done(ctx context.Context, id int64, command string) (Reminder, error) {
	return s.setStatus(ctx, id, StatusDone, command)
}

// Remove takes a pending reminder off the list; the row and its changes stay.
func (s *Store) Remove(ctx context.Context, id int64, command string) (Reminder, error) {
	return s.setStatus(ctx, id, StatusRemoved, command)
}

func (s *Store) setStatus(ctx context.Context, id int64, status, command string) (Reminder, error) {
	return s.change(ctx, id, status, command, func(tx *sql.Tx, r Reminder, now string) (sql.Result, error) {
		return tx.ExecContext(ctx, qSetStatus, status, now, id)
	}, nil)
}

// Snooze moves a pending reminder to a new due time; a tick shows it again
// then.
func (s *Store) Snooze(ctx context.Context, id int64, due time.Time, command string) (Reminder, error) {
	return s.change(ctx, id, "snooze", command, func(tx *sql.Tx, r Reminder, now string) (sql.Result, error) {
		return tx.ExecContext(ctx, qSnooze, stamp(due), now, id)
	}, &due)
}

// change applies one update to a pending reminder and records it, in one
// transaction.
func (s *Store) change(ctx context.Context, id int64, action, command string,
	update func(tx *sql.Tx, r Reminder, now string) (sql.Result, error), newDue *time.Time) (Reminder, error) {
	r, err := s.Get(ctx, id)
	if err != nil {
		return r, err
	}
	if r.Status != StatusPending {
		return r, notFoundf("reminder %d is %s, not pending", id, r.Status)
	}
	now := stamp(s.now())
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return r, fmt.Errorf("%s reminder %d: %w", action, id, err)
	}
	defer tx.Rollback()
	res, err := update(tx, r, now)
	if err != nil {
		return r, fmt.Errorf("%s reminder %d: %w", action, id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return r, notFoundf("reminder %d is no longer pending", id)
	}
	var nd any
	if newDue != nil {
		nd = stamp(*newDue)
	}
	if _, err := tx.ExecContext(ctx, qChange, id, action, stamp(r.DueAt), nd, now, command); err != nil {
		return r, fmt.Errorf("%s reminder %d: %w", action, id, err)
	}
	if err := tx.Commit(); err != nil {
		return r, fmt.Errorf("%s reminder %d: %w", action, id, err)
	}
	return s.Get(ctx, id)
}

// Deliver claims the due reminders no tick has shown yet and returns them:
// each is claimed by its own conditional UPDATE, so two ticks running at once
// never both deliver the same reminder.
func (s *Store) Deliver(ctx context.Context, now time.Time, command string) ([]Reminder, error) {
	due, err := s.query(ctx, qUndelivered, stamp(now))
	if err != nil {
		return nil, err
	}
	var out []Reminder
	for _, r := range due {
		ok, err := s.claimDelivery(ctx, r.ID, now, command)
		if err != nil {
			return out, err
		}
		if ok {
			d := now.UTC().Truncate(time.Second)
			r.DeliveredAt = &d
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *Store) claimDelivery(ctx context.Context, id int64, now time.Time, command string) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, qDeliver, stamp(now), stamp(now), id)
	if err != nil {
		return false, fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, qChange, id, "deliver", nil, nil, stamp(now), command); err != nil {
		return false, fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	return true, nil
}
