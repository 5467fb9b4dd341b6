package profile

import (
	"context"
	"database/sql"
	"errors"
)

// The two writes a change that arrives from another device's journal needs
// (core/journal): the user directed it there, d names where it came from.
// Both run in the caller's transaction, the journal's replay, which also
// records how far it has read.

// ApplyTx sets key to *value, or unsets it when value is nil, in tx, and
// records the change in history as Set and Unset do. Unsetting a key that
// is not set changes nothing. The key and the value are checked as Set
// checks them (Validate): a change from elsewhere is held to the rules of
// one typed here, and one that breaks them is refused (ErrInvalid).
func (s *Store) ApplyTx(ctx context.Context, tx *sql.Tx, d Directive, key string, value *string) (Change, error) {
	value, err := checkChange(key, value)
	if err != nil {
		return Change{}, err
	}
	ch, err := s.applyChange(ctx, tx, d, key, value)
	if value == nil && errors.Is(err, ErrNotFound) {
		return Change{}, nil
	}
	return ch, err
}

// KeepLostTx records in history a value that lost to the current one (a
// change another device made earlier than the one that set the current
// value): from the lost value to the current one, so the history holds
// both while the record stays as it is.
func (s *Store) KeepLostTx(ctx context.Context, tx *sql.Tx, d Directive, key string, lost *string) error {
	if err := d.check(); err != nil {
		return err
	}
	lost, err := checkChange(key, lost)
	if err != nil {
		return err
	}
	var cur *string
	var v string
	switch err := tx.QueryRowContext(ctx, qGetValue, key).Scan(&v); {
	case err == nil:
		cur = &v
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	if (cur == nil) == (lost == nil) && (cur == nil || *cur == *lost) {
		return nil
	}
	_, err = tx.ExecContext(ctx, qInsertHistory, key, lost, cur, formatTime(s.now()), d.command)
	return err
}

// checkChange checks a change as Set and Unset check it: the key always,
// the value (normalised) when there is one.
func checkChange(key string, value *string) (*string, error) {
	if value == nil {
		return nil, checkKey(key)
	}
	v, err := Validate(key, *value)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
