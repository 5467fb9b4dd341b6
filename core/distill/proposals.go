package distill

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"agent/core/memrev"
	"agent/index"
	"agent/memory"
)

// Actions of a proposal. There is no removal: a fact that a later source
// contradicts is superseded, its line kept and annotated.
const (
	ActionAdd       = "add"
	ActionSupersede = "supersede"
)

// Proposal is a durable fact proposed for MEMORY.md, with its source.
type Proposal struct {
	ID       int64  `json:"id"`
	Period   string `json:"period"`
	Action   string `json:"action"`
	Section  string `json:"section"`
	Text     string `json:"text"`
	Source   string `json:"source"`
	Replaces string `json:"replaces,omitempty"` // the MEMORY.md line superseded
}

// checkFacts validates the facts of one reply: a known action, a real
// citation, a replaced line that exists, and nothing already in MEMORY.md
// or decided before.
func (o *Options) checkFacts(ctx context.Context, p Period, chk Checker, mem memoryFile, in []replyFact, c *Counts) ([]Proposal, error) {
	var out []Proposal
	for _, f := range in {
		if f.Action != ActionAdd && f.Action != ActionSupersede {
			c.drop(DropRemoval)
			continue
		}
		text := oneLine(f.Text, maxItemRunes)
		if text == "" {
			// A supersession with no new text would only delete.
			if f.Action == ActionSupersede {
				c.drop(DropRemoval)
			} else {
				c.drop(DropEmpty)
			}
			continue
		}
		cite, why := chk.Cite(f.Source, f.Quote)
		if why != "" {
			c.drop(why)
			continue
		}
		section := oneLine(f.Section, maxSectionRunes)
		if section == "" {
			section = memory.DefaultSection
		}
		pr := Proposal{Period: p.Key, Action: f.Action, Section: section, Text: text, Source: cite.String()}
		if f.Action == ActionSupersede {
			if _, line := findFactLine(mem.lines, f.Replaces); line == "" {
				c.drop(DropNoReplaced)
				continue
			} else {
				pr.Replaces = line
			}
		}
		present, err := o.present(ctx, mem, text)
		if err != nil {
			return nil, err
		}
		if present {
			c.drop(DropDuplicate)
			continue
		}
		if o.DB != nil {
			var status string
			err := o.DB.QueryRowContext(ctx, qKnownFact, factKey(text)).Scan(&status)
			switch {
			case err == nil && status == "rejected":
				c.drop(DropRejected)
				continue
			case err == nil:
				continue // proposed before and still pending, or accepted
			case !errors.Is(err, sql.ErrNoRows):
				return nil, fmt.Errorf("proposals: %w", err)
			}
		}
		c.Kept++
		out = append(out, pr)
	}
	return out, nil
}

// present asks Present (the index), then MEMORY.md's own lines: a fact
// written since the index last saw the file still counts.
func (o *Options) present(ctx context.Context, mem memoryFile, text string) (bool, error) {
	if o.Present != nil {
		ok, err := o.Present(ctx, text)
		if err != nil || ok {
			return ok, err
		}
	}
	return memHas(mem.lines, text), nil
}

// memHas reports whether a line of MEMORY.md holds the fact's words.
func memHas(lines []string, text string) bool {
	k := normalise(text)
	for _, l := range lines {
		if k != "" && strings.Contains(normalise(l), k) {
			return true
		}
	}
	return false
}

// IndexPresence finds a fact in MEMORY.md through the index: a chunk of
// MEMORY.md among the best hits for its words that holds all of them, in
// order.
func IndexPresence(ix *index.Index) func(ctx context.Context, text string) (bool, error) {
	return func(ctx context.Context, text string) (bool, error) {
		hits, err := ix.Search(ctx, text, index.SearchOptions{K: 10, NoSnippet: true, Fresh: true})
		if err != nil && !errors.Is(err, index.ErrNotFound) {
			return false, err
		}
		k := normalise(text)
		for _, h := range hits {
			if h.Path == "MEMORY.md" && strings.Contains(normalise(h.Text), k) {
				return true, nil
			}
		}
		return false, nil
	}
}

// findFactLine finds the list item of MEMORY.md whose text is replaces (as
// normalise compares) and that is not superseded already. It returns the
// 1-based line number and the line, or 0 and "".
func findFactLine(lines []string, replaces string) (int, string) {
	want := normalise(replaces)
	if want == "" {
		return 0, ""
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
			continue
		}
		if strings.Contains(t, supersededMark) {
			continue
		}
		body := normalise(stripCitation(t[2:]))
		if body == want || normalise(t[2:]) == want {
			return i + 1, l
		}
	}
	return 0, ""
}

// stripCitation drops a trailing " (logs/…:N-M)" the distillation added.
func stripCitation(s string) string {
	if i := strings.LastIndex(s, " (logs/"); i >= 0 && strings.HasSuffix(s, ")") {
		return s[:i]
	}
	return s
}

// supersededMark starts the note on a superseded line.
const supersededMark = "_(superseded "

// factKey identifies a fact across runs: its normalised text.
func factKey(text string) string { return normalise(text) }

func storeProposals(ctx context.Context, db *sql.DB, p Period, facts []Proposal, now time.Time) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store proposals: %w", err)
	}
	defer tx.Rollback()
	n := 0
	for _, f := range facts {
		r, err := tx.ExecContext(ctx, qInsertProposal, p.Key, f.Action, f.Section, f.Text, f.Source, f.Replaces, factKey(f.Text), now.UTC().Format(time.RFC3339))
		if err != nil {
			return 0, fmt.Errorf("store proposals: %w", err)
		}
		if k, _ := r.RowsAffected(); k > 0 {
			n++
		}
	}
	return n, tx.Commit()
}

// Pending lists the proposals not yet accepted or rejected, oldest first.
func Pending(ctx context.Context, db *sql.DB) ([]Proposal, error) {
	rows, err := db.QueryContext(ctx, qPendingProposal)
	if err != nil {
		return nil, fmt.Errorf("proposals: %w", err)
	}
	defer rows.Close()
	var out []Proposal
	for rows.Next() {
		var p Proposal
		if err := rows.Scan(&p.ID, &p.Period, &p.Action, &p.Section, &p.Text, &p.Source, &p.Replaces); err != nil {
			return nil, fmt.Errorf("proposals: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Reject remembers that the user does not want this fact: it is never
// proposed again.
func Reject(ctx context.Context, db *sql.DB, id int64, now time.Time) error {
	_, err := db.ExecContext(ctx, qDecideProposal, "rejected", now.UTC().Format(time.RFC3339), id)
	return err
}

// Accept writes a proposal into MEMORY.md as one agent revision — an
// addition appended under its section, or a supersession that keeps the old
// line and annotates it with the day and the new source, the new fact right
// below — then marks it accepted. A run killed after the write and before
// the mark finds the fact present next time and only marks it.
func Accept(ctx context.Context, db *sql.DB, revs *memrev.Store, home string, p Proposal, today time.Time) error {
	return accept(ctx, db, revs, home, p, today, nil)
}

// accept is Accept, marking its stages.
func accept(ctx context.Context, db *sql.DB, revs *memrev.Store, home string, p Proposal, today time.Time, stage stage) error {
	mem, err := readMemory(home)
	if err != nil {
		return err
	}
	line := p.Text + " (" + p.Source + ")"
	stage.at("accept")
	if !memHas(mem.lines, p.Text) {
		reason := fmt.Sprintf("distill %s: %s %q", p.Period, p.Action, p.Text)
		_, err = revs.Change(ctx, memrev.Agent, reason, func() error {
			// A replaced line someone removed since leaves a plain addition.
			if n, old := findFactLine(mem.lines, p.Replaces); p.Action == ActionSupersede && n > 0 {
				note := fmt.Sprintf("%s%s: see %s)_", supersededMark, today.Format(time.DateOnly), p.Source)
				_, err := memory.Supersede(home, n, old, note, line)
				return err
			}
			_, err := memory.AppendFact(home, line, p.Section)
			return err
		})
		if err != nil {
			return err
		}
	}
	stage.at("accepted")
	_, err = db.ExecContext(ctx, qDecideProposal, "accepted", today.UTC().Format(time.RFC3339), p.ID)
	return err
}
