package core

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Session statuses, as sessions list shows them (Session.Status).
const (
	SessionAnswered   = "answered"   // the model replied at least once
	SessionUnanswered = "unanswered" // messages, but no reply: a failed or interrupted turn
	SessionEmpty      = "empty"      // no message at all
)

// sessionStatus derives a listed session's status from what the listing
// reads anyway: its last reply with words and its turn count.
func sessionStatus(s Session) string {
	switch {
	case s.LastAssistant != "":
		return SessionAnswered
	case s.Turns > 0:
		return SessionUnanswered
	}
	return SessionEmpty
}

// titleSlug makes a session title of a message's first words: letters and
// digits, lower-cased, joined by '-', at most titleWords words and
// titleRunes runes. "" when the message has no word.
func titleSlug(msg string) string {
	const titleWords, titleRunes = 5, 40
	words := strings.FieldsFunc(msg, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var b strings.Builder
	n := 0
	for i, w := range words {
		if i == titleWords {
			break
		}
		w = strings.ToLower(w)
		wn := len([]rune(w))
		if n > 0 && n+1+wn > titleRunes {
			break
		}
		if n == 0 && wn > titleRunes {
			w, wn = string([]rune(w)[:titleRunes]), titleRunes
		}
		if n > 0 {
			b.WriteByte('-')
			n++
		}
		b.WriteString(w)
		n += wn
	}
	return b.String()
}

// setTitle gives session id, if it has none, the title made of msg, made
// unique with the next free "-N" among titles and names. tx must hold the
// write lock already (it has written), so the pick and the update are one.
func setTitle(ctx context.Context, tx *sql.Tx, id int64, msg string) (string, error) {
	base := titleSlug(msg)
	if base == "" {
		return "", nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT title FROM sessions WHERE title = ?1 OR title GLOB ?1 || '-[0-9]*'
		UNION ALL SELECT name FROM sessions WHERE name = ?1 OR name GLOB ?1 || '-[0-9]*'`, base)
	if err != nil {
		return "", err
	}
	taken, next := false, 2
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return "", err
		}
		if t == base {
			taken = true
		} else if n, err := strconv.Atoi(t[len(base)+1:]); err == nil && n >= next {
			next = n + 1
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	title := base
	if taken {
		title = base + "-" + strconv.Itoa(next)
	}
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?1 WHERE id = ?2 AND title = ''`, title, id)
	if err != nil {
		return "", fmt.Errorf("title session: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", nil // titled already
	}
	return title, nil
}

// titlesStep is the name of core's migration in Go that titles the
// sessions stored before migration 0010.
const titlesStep = "0011_session_titles.go"

// backfillTitles titles, once, each session stored before titles were
// kept, from its first user message with words, oldest session first (so
// the older one keeps the plain slug).
func backfillTitles(ctx context.Context, tx *sql.Tx, _ string) error {
	rows, err := tx.QueryContext(ctx, `SELECT s.id, m.content FROM sessions s JOIN messages m ON m.session_id = s.id
		WHERE s.title = '' AND m.role = 'user' ORDER BY s.id, m.id`)
	if err != nil {
		return err
	}
	type first struct {
		id   int64
		text string
	}
	var msgs []first
	for rows.Next() {
		var f first
		if err := rows.Scan(&f.id, &f.text); err != nil {
			rows.Close()
			return err
		}
		msgs = append(msgs, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	done := map[int64]bool{}
	for _, m := range msgs {
		if done[m.id] {
			continue
		}
		t, err := setTitle(ctx, tx, m.id, m.text)
		if err != nil {
			return err
		}
		done[m.id] = t != ""
	}
	return nil
}

// Unreplied returns the names of the sessions no reply came in to —
// unanswered ones (messages, no reply) when unanswered, empty ones (no
// message) when empty — last active before before: a session active since
// may be a turn under way, or a chat about to send its first message.
func (st *Sessions) Unreplied(ctx context.Context, unanswered, empty bool, before time.Time) ([]string, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT s.name FROM sessions s WHERE NOT `+sqlAnswered+`
		AND ((?1 AND s.turns > 0) OR (?2 AND s.turns = 0)) AND s.updated_at < ?3 ORDER BY s.id`,
		unanswered, empty, before.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}
