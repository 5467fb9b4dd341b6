package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The identity section ends the fixed prompt: who is who, the date, what the
// assistant can do, what is pending, its jobs and recent context. It is
// assembled from state with no model call, and it is a pure function of that
// state: nothing in it moves from one message to the next (no time of day,
// no counters a logged turn changes), so the bytes the model has evaluated
// stay valid until something it shows really changes. What varies per turn
// goes in the turn's context message instead (see assemble).

// Identity section headings, in the order they appear.
const (
	SectionCapabilities = "Capabilities"
	SectionPending      = "Pending"
	SectionJobs         = "Scheduled jobs"
	SectionRecent       = "Recent context"
)

var identitySections = []string{SectionCapabilities, SectionPending, SectionJobs, SectionRecent}

// IdentityBlock is lines a capability contributes under one heading of the
// identity section. Each line is one fact, without the leading "- ".
type IdentityBlock struct {
	Section string
	Lines   []string
	// Cut says what had to be shortened to keep the lines in their budget
	// ("" when nothing); `agent prompt` reports it with the other cuts.
	Cut string
	// Short is a shorter form of Lines (nil: none), used when the whole
	// section would pass identityBudget.
	Short []string
}

// IdentitySource is a capability that shows itself in the identity section
// (skills, integrations, reminders, jobs, digests). Its lines must depend
// only on state and on the day, never on the time of day, and come in a
// stable order: the section must be byte-identical between state changes.
type IdentitySource interface {
	Identity(ctx context.Context, today time.Time) ([]IdentityBlock, error)
}

// identityFacts is the state the identity section is written from.
type identityFacts struct {
	AgentName, UserName string
	Today               time.Time // now, in the user's zone; only the date is shown
	Started             time.Time // the session's start, in the user's zone
	Zone                string
	Model               string
	NumCtx              int
	Tools               []string
	Last                *Session // the session before this one, as it was when this one began
	Blocks              []IdentityBlock
}

// identityBudget is the most the identity section may take, in tokens as
// the default (uncalibrated, so never moving) estimator counts them. It
// holds the worst case — ten integrations, ten skills, reminders
// and jobs past their lines, a long last session — and a real tokenizer
// counts fewer (scripts/e2e.sh measures it with prompt_eval_count).
const identityBudget = 400

// Quoted words of the last session: as long as the budget allows.
const (
	lastSessionQuote      = 140
	lastSessionQuoteShort = 50
)

// identitySection renders the facts within identityBudget. Over it, parts
// take their short form one at a time, least needed first — the last
// session's quotes, then recent context, jobs, pending, skills and
// integrations (reverse section order) — until it fits; cuts names what
// was shortened, for `agent prompt`. It is a pure function of the facts,
// so the same state always gives the same bytes.
func identitySection(f identityFacts) (section string, cuts []string) {
	est := newEstimator(0)
	blocks := slices.Clone(f.Blocks)
	quote := lastSessionQuote
	section = renderIdentity(f, blocks, quote)
	var shortened []string
	if est.tokens(section) > identityBudget && f.Last != nil && f.Last.LastUser != "" {
		quote = lastSessionQuoteShort
		section = renderIdentity(f, blocks, quote)
		shortened = append(shortened, "last session")
	}
	order := slices.Clone(identitySections)
	slices.Reverse(order)
	for _, sec := range order {
		for i := len(blocks) - 1; i >= 0 && est.tokens(section) > identityBudget; i-- {
			if blocks[i].Section != sec || blocks[i].Short == nil {
				continue
			}
			blocks[i].Lines, blocks[i].Short, blocks[i].Cut = blocks[i].Short, nil, ""
			section = renderIdentity(f, blocks, quote)
			shortened = append(shortened, strings.ToLower(sec))
		}
	}
	for _, b := range blocks {
		if b.Cut != "" {
			cuts = append(cuts, "identity: "+b.Cut)
		}
	}
	if len(shortened) > 0 {
		cuts = append(cuts, fmt.Sprintf("identity: shortened to fit %d tokens: %s", identityBudget, strings.Join(slices.Compact(shortened), ", ")))
	}
	return section, cuts
}

// renderIdentity writes the section, the last session's words quoted up
// to quote characters each.
func renderIdentity(f identityFacts, blocks []IdentityBlock, quote int) string {
	var b strings.Builder
	b.WriteString("## Now\n\n")
	switch {
	case f.AgentName != "" && f.UserName != "":
		fmt.Fprintf(&b, "- You are %s, the personal assistant of %s.\n", oneLine(f.AgentName, 60), oneLine(f.UserName, 60))
	case f.UserName != "":
		fmt.Fprintf(&b, "- You are the personal assistant of %s.\n", oneLine(f.UserName, 60))
	}
	zone := f.Zone
	if zone == "" {
		zone = "local time; the user has not set user.timezone"
	}
	fmt.Fprintf(&b, "- Today is %s (%s). This conversation began at %s; each user message follows a note of its time.\n",
		f.Today.Format("Monday, 2 January 2006"), zone, f.Started.Format("15:04"))
	fmt.Fprintf(&b, "- Model: %s, context window %d tokens.\n", f.Model, f.NumCtx)

	lines := map[string][]string{}
	if len(f.Tools) > 0 {
		lines[SectionCapabilities] = append(lines[SectionCapabilities], "Tools: "+strings.Join(f.Tools, ", ")+".")
	}
	if f.Last == nil {
		lines[SectionRecent] = append(lines[SectionRecent], "Last session: none; this is the first conversation.")
	} else {
		l := fmt.Sprintf("Last session: %q, %s.", f.Last.Name, f.Last.UpdatedAt.In(f.Today.Location()).Format("Mon 2 Jan 15:04"))
		if f.Last.LastUser != "" {
			l += fmt.Sprintf(" The user said: %q", oneLine(f.Last.LastUser, quote))
			if f.Last.LastAssistant != "" {
				l += fmt.Sprintf(" You answered: %q", oneLine(f.Last.LastAssistant, quote))
			}
		}
		lines[SectionRecent] = append(lines[SectionRecent], l)
	}
	order := append([]string(nil), identitySections...)
	for _, blk := range blocks {
		if _, known := lines[blk.Section]; !known && !slices.Contains(order, blk.Section) {
			order = append(order, blk.Section)
		}
		lines[blk.Section] = append(lines[blk.Section], blk.Lines...)
	}
	for _, sec := range order {
		if len(lines[sec]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", sec)
		for _, l := range lines[sec] {
			b.WriteString("- ")
			b.WriteString(strings.TrimSpace(l))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// timeNote is the per-turn runtime note: the time a message was sent.
func timeNote(now time.Time) string {
	return "[sent " + now.Format("Mon 2 Jan 2006 15:04") + "]"
}
