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
	// Quoted, when set, marks the lines past its first Head as words the
	// model or the user wrote that every later prompt replays (a skill's
	// description, a reminder): they are rendered inside a memory fence,
	// neutralised, as recalled memory is, so none reads as this prompt's own.
	Quoted *Quoted
}

// Quoted names the writer of an identity block's quoted lines: the fence's
// source and by attributes, and how many leading lines are this program's
// own words and stay outside it (a header).
type Quoted struct {
	Source, By string
	Head       int
}

// Who wrote the quoted text, as a fence's by attribute says it.
const (
	ByModel        = "model"
	ByModelOrUser  = "model or user"
	ByUserAndModel = "user and model"
)

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
// integrations (reverse section order), then the last session's quotes go
// altogether — until it fits; cuts names what was shortened, for `agent
// prompt`. It is a pure function of the facts,
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
	// Still over: the quotes go altogether. The first step ran on the same
	// condition (the section only shrank since), so "last session" is
	// already among the shortened.
	if est.tokens(section) > identityBudget && f.Last != nil && f.Last.LastUser != "" {
		quote = 0
		section = renderIdentity(f, blocks, quote)
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

	items := map[string][]string{} // each section's rendered lines and fences
	add := func(sec string, lines []string, q *Quoted) {
		head := len(lines)
		if q != nil {
			head = min(q.Head, len(lines))
		}
		var b strings.Builder
		for _, l := range lines[:head] {
			b.WriteString("- " + strings.TrimSpace(l) + "\n")
		}
		if head < len(lines) {
			b.WriteString(quotedLines(q, lines[head:]))
		}
		if b.Len() > 0 {
			items[sec] = append(items[sec], b.String())
		}
	}
	if len(f.Tools) > 0 {
		add(SectionCapabilities, []string{"Tools: " + strings.Join(f.Tools, ", ") + "."}, nil)
	}
	if f.Last == nil {
		add(SectionRecent, []string{"Last session: none; this is the first conversation."}, nil)
	} else {
		lines := []string{fmt.Sprintf("Last session: %q, %s.", f.Last.Name, f.Last.UpdatedAt.In(f.Today.Location()).Format("Mon 2 Jan 15:04"))}
		if f.Last.LastUser != "" && quote > 0 {
			lines = append(lines, fmt.Sprintf("The user said: %q", oneLine(f.Last.LastUser, quote)))
			if f.Last.LastAssistant != "" {
				lines = append(lines, fmt.Sprintf("You answered: %q", oneLine(f.Last.LastAssistant, quote)))
			}
		}
		add(SectionRecent, lines, &Quoted{Source: "last session", By: ByUserAndModel, Head: 1})
	}
	order := append([]string(nil), identitySections...)
	for _, blk := range blocks {
		if !slices.Contains(order, blk.Section) {
			order = append(order, blk.Section)
		}
		add(blk.Section, blk.Lines, blk.Quoted)
	}
	for _, sec := range order {
		if len(items[sec]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", sec)
		for _, it := range items[sec] {
			b.WriteString(it)
		}
	}
	return b.String()
}

// quotedLines fences lines others wrote as recallBlock fences a note: the
// same tag, and by says who wrote them. The sources neutralise their text
// (oneLine); it is neutralised here once more (a second pass changes
// nothing), so that even a source that forgot cannot close the fence or
// write a template's marker.
func quotedLines(q *Quoted, lines []string) string {
	var b strings.Builder
	b.WriteString("<memory source=\"" + neutralise(q.Source) + "\" by=\"" + neutralise(q.By) + "\">\n")
	for _, l := range lines {
		b.WriteString("- " + strings.TrimSpace(neutralise(l)) + "\n")
	}
	b.WriteString("</memory>\n")
	return b.String()
}

// timeNote is the per-turn runtime note: the time a message was sent.
func timeNote(now time.Time) string {
	return "[sent " + now.Format("Mon 2 Jan 2006 15:04") + "]"
}
