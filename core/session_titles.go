package core

import (
	"context"
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

// titles names the sessions by their first user message's words: the
// title made of them (titleSlug), unique among titles and names, the
// older session (by id) keeping the plain one and the next "-2", "-3".
// Derived on each read, never stored: a forget or a compaction that
// rewrites the message rewrites the title with it, and nothing else holds
// the words.
func (st *Sessions) titles(ctx context.Context) (map[int64]string, error) {
	rows, err := st.db.QueryContext(ctx, sqlSessionFirstWords)
	if err != nil {
		return nil, fmt.Errorf("read session titles: %w", err)
	}
	defer rows.Close()
	type first struct {
		id   int64
		slug string
	}
	var firsts []first
	taken := map[string]bool{}
	for rows.Next() {
		var f first
		var name, text string
		if err := rows.Scan(&f.id, &name, &text); err != nil {
			return nil, fmt.Errorf("read session titles: %w", err)
		}
		taken[name] = true
		if f.slug = titleSlug(text); f.slug != "" {
			firsts = append(firsts, f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read session titles: %w", err)
	}
	out := make(map[int64]string, len(firsts))
	next := map[string]int{}
	for _, f := range firsts {
		t := f.slug
		for n := max(next[f.slug], 2); taken[t]; n++ {
			t, next[f.slug] = f.slug+"-"+strconv.Itoa(n), n+1
		}
		taken[t], out[f.id] = true, t
	}
	return out, nil
}

// withTitles fills the sessions' titles.
func (st *Sessions) withTitles(ctx context.Context, list []Session) ([]Session, error) {
	if len(list) == 0 {
		return list, nil
	}
	titles, err := st.titles(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i].Title = titles[list[i].ID]
	}
	return list, nil
}

// byTitle returns the session titled title.
func (st *Sessions) byTitle(ctx context.Context, title string) (Session, error) {
	titles, err := st.titles(ctx)
	if err != nil {
		return Session{}, err
	}
	for id, t := range titles {
		if t == title {
			s, err := st.one(ctx, sqlSessionByID, id)
			s.Title = t
			return s, err
		}
	}
	return Session{}, ErrNoSession
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
