package profile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Directive is a user's explicit direction to change the profile: the name of
// the command the user ran. Only ByUser makes a usable one, and every method
// that writes records demands one, so the code path of any write names the
// user command behind it (and history records it).
type Directive struct{ command string }

// ByUser returns the Directive for a command the user ran, for example
// ByUser("profile set") or ByUser("chat bootstrap (confirmed)").
func ByUser(command string) Directive { return Directive{command: strings.TrimSpace(command)} }

func (d Directive) check() error {
	if d.command == "" {
		return ErrNoDirective
	}
	return nil
}

// Limits on the free text attached to proposals.
const (
	maxReasonRunes   = 500
	maxProposerRunes = 100
)

// Store reads and writes profile records in state.db. The db must be opened
// with immediate write transactions (core does: _txlock=immediate), so that
// concurrent writers queue on the busy timeout instead of deadlocking.
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

// Record is one profile row.
type Record struct {
	Key, Scope, Value string
	UpdatedAt         time.Time
}

// Change is one entry of the profile history. Old is nil when the key was not
// set before, New is nil when the change unset it. ID is 0 for a change that
// did nothing (the value was already set) and so was not recorded.
type Change struct {
	ID       int64
	Key      string
	Old, New *string
	At       time.Time
	Command  string
}

// Proposal is a change suggested by the model, applied only when the user
// accepts it. Status is "pending", "accepted" or "rejected".
type Proposal struct {
	ID                             int64
	Key, Value, Reason, ProposedBy string
	Status                         string
	CreatedAt                      time.Time
	DecidedAt                      *time.Time
}

// Proposal statuses.
const (
	StatusPending  = "pending"
	StatusAccepted = "accepted"
	StatusRejected = "rejected"
)

// Get returns the value of key, and whether it is set.
func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, qGetValue, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("profile get %s: %w", key, err)
	}
	return v, true, nil
}

// All returns every record, sorted by key.
func (s *Store) All(ctx context.Context) ([]Record, error) {
	rows, err := s.db.QueryContext(ctx, qAllRecords)
	if err != nil {
		return nil, fmt.Errorf("profile records: %w", err)
	}
	defer rows.Close()
	var recs []Record
	for rows.Next() {
		var r Record
		var at string
		if err := rows.Scan(&r.Key, &r.Scope, &r.Value, &at); err != nil {
			return nil, fmt.Errorf("profile records: %w", err)
		}
		if r.UpdatedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("profile record %s: %w", r.Key, err)
		}
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("profile records: %w", err)
	}
	return recs, nil
}

// Set sets key to value on the user's direction d. The value is validated
// first; setting the value a key already has changes and records nothing.
func (s *Store) Set(ctx context.Context, d Directive, key, value string) (Change, error) {
	if err := d.check(); err != nil {
		return Change{}, fmt.Errorf("profile set %s: %w", key, err)
	}
	v, err := Validate(key, value)
	if err != nil {
		return Change{}, err
	}
	var ch Change
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		ch, err = s.applyChange(ctx, tx, d, key, &v)
		return err
	})
	if err != nil {
		return Change{}, fmt.Errorf("profile set %s: %w", key, err)
	}
	return ch, nil
}

// Unset removes key on the user's direction d; ErrNotFound if it is not set.
func (s *Store) Unset(ctx context.Context, d Directive, key string) (Change, error) {
	if err := d.check(); err != nil {
		return Change{}, fmt.Errorf("profile unset %s: %w", key, err)
	}
	var ch Change
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		ch, err = s.applyChange(ctx, tx, d, key, nil)
		return err
	})
	if err != nil {
		return Change{}, fmt.Errorf("profile unset %s: %w", key, err)
	}
	return ch, nil
}

// History returns every recorded change, oldest first.
func (s *Store) History(ctx context.Context) ([]Change, error) {
	rows, err := s.db.QueryContext(ctx, qHistory)
	if err != nil {
		return nil, fmt.Errorf("profile history: %w", err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var old, nw sql.NullString
		var at string
		if err := rows.Scan(&c.ID, &c.Key, &old, &nw, &at, &c.Command); err != nil {
			return nil, fmt.Errorf("profile history: %w", err)
		}
		c.Old, c.New = nullable(old), nullable(nw)
		if c.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("profile history #%d: %w", c.ID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("profile history: %w", err)
	}
	return out, nil
}

// Propose records a change suggested by proposedBy (for example "chat
// session work") for the user to accept or reject. It validates the change
// exactly as Set would but never touches the records. Proposing what is
// already pending returns the pending proposal; proposing the current value
// is refused.
func (s *Store) Propose(ctx context.Context, key, value, reason, proposedBy string) (Proposal, error) {
	v, err := Validate(key, value)
	if err != nil {
		return Proposal{}, err
	}
	reason, err = normaliseReason(reason)
	if err != nil {
		return Proposal{}, fmt.Errorf("profile proposal for %s: %w", key, err)
	}
	by, err := checkLine(proposedBy, maxProposerRunes)
	if err != nil {
		return Proposal{}, fmt.Errorf("profile proposal for %s: proposed by: %w", key, err)
	}
	var p Proposal
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var cur string
		switch err := tx.QueryRowContext(ctx, qGetValue, key).Scan(&cur); {
		case err == nil && cur == v:
			return invalidf("%s is already %q", key, v)
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var id int64
		err := tx.QueryRowContext(ctx, qPendingProposalFor, key, v).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			res, err := tx.ExecContext(ctx, qInsertProposal, key, v, reason, by, formatTime(s.now()))
			if err != nil {
				return err
			}
			if id, err = res.LastInsertId(); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		p, err = getProposal(ctx, tx, id)
		return err
	})
	if err != nil {
		return Proposal{}, fmt.Errorf("profile proposal for %s: %w", key, err)
	}
	return p, nil
}

// Proposals lists proposals with the given status ("" for all), oldest first.
func (s *Store) Proposals(ctx context.Context, status string) ([]Proposal, error) {
	var rows *sql.Rows
	var err error
	switch status {
	case "":
		rows, err = s.db.QueryContext(ctx, qAllProposals)
	case StatusPending, StatusAccepted, StatusRejected:
		rows, err = s.db.QueryContext(ctx, qProposalsByStatus, status)
	default:
		return nil, invalidf("unknown proposal status %q (pending, accepted or rejected)", status)
	}
	if err != nil {
		return nil, fmt.Errorf("profile proposals: %w", err)
	}
	defer rows.Close()
	var out []Proposal
	for rows.Next() {
		p, err := scanProposal(rows)
		if err != nil {
			return nil, fmt.Errorf("profile proposals: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("profile proposals: %w", err)
	}
	return out, nil
}

// Accept applies pending proposal id on the user's direction d and marks it
// accepted, in one transaction. ErrNotFound if there is no such proposal,
// ErrInvalid if it was already decided, no longer validates, or is stale:
// its key was changed after it was made (set, unset or another proposal
// accepted), so it was judged against a value that is gone and would
// silently overwrite the user's newer word. A stale or invalid proposal
// stays pending, for reject. Accepting the value the key already has is
// never stale: it changes nothing.
func (s *Store) Accept(ctx context.Context, d Directive, id int64) (Change, error) {
	if err := d.check(); err != nil {
		return Change{}, fmt.Errorf("profile accept %d: %w", id, err)
	}
	var ch Change
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		p, err := pendingProposal(ctx, tx, id)
		if err != nil {
			return err
		}
		// Validation rules may have tightened since the proposal was made.
		v, err := Validate(p.Key, p.Value)
		if err != nil {
			return fmt.Errorf("proposal %d can no longer be applied: %w (drop it with: agent profile reject %d)", id, err, id)
		}
		if err := notChangedSince(ctx, tx, p, v); err != nil {
			return err
		}
		if ch, err = s.applyChange(ctx, tx, d, p.Key, &v); err != nil {
			return err
		}
		return decide(ctx, tx, id, StatusAccepted, s.now())
	})
	if err != nil {
		return Change{}, fmt.Errorf("profile accept %d: %w", id, err)
	}
	return ch, nil
}

// Reject marks pending proposal id rejected on the user's direction d; the
// records are not touched. Errors as for Accept.
func (s *Store) Reject(ctx context.Context, d Directive, id int64) (Proposal, error) {
	if err := d.check(); err != nil {
		return Proposal{}, fmt.Errorf("profile reject %d: %w", id, err)
	}
	var p Proposal
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := pendingProposal(ctx, tx, id); err != nil {
			return err
		}
		if err := decide(ctx, tx, id, StatusRejected, s.now()); err != nil {
			return err
		}
		var err error
		p, err = getProposal(ctx, tx, id)
		return err
	})
	if err != nil {
		return Proposal{}, fmt.Errorf("profile reject %d: %w", id, err)
	}
	return p, nil
}

// applyChange is the only code that writes profile_records. It sets key to
// *value (or unsets it when value is nil) and records the change in the same
// transaction; a change that changes nothing is not recorded.
func (s *Store) applyChange(ctx context.Context, tx *sql.Tx, d Directive, key string, value *string) (Change, error) {
	if err := d.check(); err != nil {
		return Change{}, err
	}
	var old *string
	var cur string
	switch err := tx.QueryRowContext(ctx, qGetValue, key).Scan(&cur); {
	case err == nil:
		old = &cur
	case !errors.Is(err, sql.ErrNoRows):
		return Change{}, err
	}
	at := s.now()
	ch := Change{Key: key, Old: old, New: value, At: at, Command: d.command}
	switch {
	case old == nil && value == nil:
		if err := checkKey(key); err != nil {
			return Change{}, err
		}
		return Change{}, notFoundf("not set")
	case old != nil && value != nil && *old == *value:
		return ch, nil
	case value == nil:
		if _, err := tx.ExecContext(ctx, qDeleteRecord, key); err != nil {
			return Change{}, err
		}
	case old == nil:
		if _, err := tx.ExecContext(ctx, qInsertRecord, key, scopeOf(key), *value, formatTime(at)); err != nil {
			return Change{}, err
		}
	default:
		if _, err := tx.ExecContext(ctx, qUpdateRecord, *value, formatTime(at), key); err != nil {
			return Change{}, err
		}
	}
	res, err := tx.ExecContext(ctx, qInsertHistory, key, old, value, formatTime(at), d.command)
	if err != nil {
		return Change{}, err
	}
	if ch.ID, err = res.LastInsertId(); err != nil {
		return Change{}, err
	}
	return ch, nil
}

// inTx runs fn in a write transaction, committing only if fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// notChangedSince refuses proposal p, of normalised value v, when its key
// was changed after p was made, unless the key already holds v.
func notChangedSince(ctx context.Context, tx *sql.Tx, p Proposal, v string) error {
	var cur sql.NullString
	if err := tx.QueryRowContext(ctx, qGetValue, p.Key).Scan(&cur); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if cur.Valid && cur.String == v {
		return nil
	}
	var at string
	switch err := tx.QueryRowContext(ctx, qLastChangeOf, p.Key).Scan(&at); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	changed, err := parseTime(at)
	if err != nil {
		return err
	}
	if !changed.After(p.CreatedAt) {
		return nil
	}
	now := "unset"
	if cur.Valid {
		now = strconv.Quote(cur.String)
	}
	return invalidf("proposal %d is stale: %s changed after it was proposed (now %s); if you still want %q, set it with agent profile set; drop the proposal with: agent profile reject %d",
		p.ID, p.Key, now, v, p.ID)
}

func pendingProposal(ctx context.Context, tx *sql.Tx, id int64) (Proposal, error) {
	p, err := getProposal(ctx, tx, id)
	if err != nil {
		return Proposal{}, err
	}
	if p.Status != StatusPending {
		return Proposal{}, invalidf("proposal is already %s", p.Status)
	}
	return p, nil
}

func getProposal(ctx context.Context, tx *sql.Tx, id int64) (Proposal, error) {
	p, err := scanProposal(tx.QueryRowContext(ctx, qProposal, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Proposal{}, notFoundf("no such proposal")
	}
	return p, err
}

func decide(ctx context.Context, tx *sql.Tx, id int64, status string, at time.Time) error {
	res, err := tx.ExecContext(ctx, qDecideProposal, status, formatTime(at), id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("mark proposal %d %s: %d rows changed (%v)", id, status, n, err)
	}
	return nil
}

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface{ Scan(dest ...any) error }

func scanProposal(sc scanner) (Proposal, error) {
	var p Proposal
	var created string
	var decided sql.NullString
	if err := sc.Scan(&p.ID, &p.Key, &p.Value, &p.Reason, &p.ProposedBy, &p.Status, &created, &decided); err != nil {
		return Proposal{}, err
	}
	var err error
	if p.CreatedAt, err = parseTime(created); err != nil {
		return Proposal{}, err
	}
	if decided.Valid {
		t, err := parseTime(decided.String)
		if err != nil {
			return Proposal{}, err
		}
		p.DecidedAt = &t
	}
	return p, nil
}

// normaliseReason folds a proposal's reason onto one line: the model writes
// it, so line breaks and stray control characters become single spaces rather
// than failing the proposal.
func normaliseReason(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", invalidf("reason is not valid UTF-8")
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || forbiddenRune(r) }), " ")
	if n := utf8.RuneCountInString(s); n > maxReasonRunes {
		return "", invalidf("reason is %d characters; the limit is %d", n, maxReasonRunes)
	}
	return s, nil
}

// Times are stored as RFC 3339 in UTC, so they sort as text.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad timestamp %q: %w", s, err)
	}
	return t, nil
}

func nullable(ns sql.NullString) *string {
	if !ns.Valid {
		return nil
	}
	return &ns.String
}
