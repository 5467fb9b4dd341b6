package index

import (
	"context"
	"fmt"
	"time"

	"agent/index/timewords"
)

// daySpan is the days a search keeps to: the time its words name
// ("yesterday", "in October": timewords.Find) or --since/--until.
type daySpan struct {
	from, to string // "2006-01-02", inclusive
	label    string // what Hit.Query says of a chunk found by its date alone
	// strict is set for --since/--until: nothing outside the days is
	// returned. A span read from the words gives way to fallback, the
	// plan of the words as typed, when no chunk is of those days (a
	// question about 2023 in a diary of 2026).
	strict   bool
	fallback *plan
}

// dayShare is the score of a chunk of the asked days that no word of the
// query found: below any that a word found, so "dinner last week" shows
// the week's dinner first and the week's other entries after it; for
// "what did I do yesterday" it is the whole day, in the order written.
const dayShare = 0.05

// searchPlan is buildPlan with the time the text or opts name (days.go):
// the plan of the words without their time words, which need not match.
func searchPlan(text string, opts SearchOptions) plan {
	if opts.Raw {
		return buildPlan(text, true)
	}
	if opts.Since != "" || opts.Until != "" {
		p := buildPlan(text, false)
		p.days = &daySpan{from: opts.Since, to: opts.Until, strict: true, label: "days: " + opts.Since + ".." + opts.Until}
		if p.days.from == "" {
			p.days.from = "0000-01-01"
		}
		if p.days.to == "" {
			p.days.to = "9999-12-31"
		}
		return p
	}
	if opts.Now.IsZero() {
		return buildPlan(text, false)
	}
	s, ok := timewords.Find(text, opts.Now)
	if !ok {
		return buildPlan(text, false)
	}
	typed := buildPlan(text, false)
	p := buildPlan(s.Without(text), false)
	p.when = p.when || typed.when
	p.days = &daySpan{from: s.From, to: s.To, label: "when: " + s.Words(text), fallback: &typed}
	if s.From != s.To {
		p.days.label += " (" + s.From + ".." + s.To + ")"
	} else {
		p.days.label += " (" + s.From + ")"
	}
	return p
}

// ValidDay checks a --since or --until value: a date, "2006-01-02".
func ValidDay(s string) error {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return fmt.Errorf("%w date %q: want YYYY-MM-DD", ErrInvalid, s)
	}
	return nil
}

// daysPlan settles a plan's days against the index: a span read from the
// words with no chunk of its days gives way to the words as typed.
func (ix *Index) daysPlan(ctx context.Context, p plan) (plan, error) {
	if p.days == nil || p.days.strict {
		return p, nil
	}
	var n int
	if err := ix.db.QueryRowContext(ctx, sqlAnyOfDays, p.days.from, p.days.to).Scan(&n); err != nil {
		return p, err
	}
	if n == 0 {
		return *p.days.fallback, nil
	}
	return p, nil
}

// ofDays adds the chunks of the days that no sub-query found, at dayShare,
// latest day first and in the order written within a day.
func (ix *Index) ofDays(ctx context.Context, d *daySpan, pool int, byID map[int64]*candidate, order []*candidate) ([]*candidate, error) {
	rows, err := ix.db.QueryContext(ctx, sqlChunksOfDays, d.from, d.to, pool)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		c := &candidate{sub: subDays, score: dayShare}
		if err := rows.Scan(&c.id, &c.date, &c.file, &c.by); err != nil {
			return nil, err
		}
		if _, ok := byID[c.id]; !ok {
			byID[c.id] = c
			order = append(order, c)
		}
	}
	return order, rows.Err()
}

// subDays is candidate.sub for a chunk found by its date alone.
const subDays = -2

// inDays keeps the candidates of d's days (a vector search's are of any).
func inDays(order []*candidate, d *daySpan) []*candidate {
	kept := order[:0]
	for _, c := range order {
		if c.date >= d.from && c.date <= d.to {
			kept = append(kept, c)
		}
	}
	return kept
}
