package core

import (
	"context"
	"fmt"
	"time"

	"agent/core/window"
	"agent/memory/secrets"
	"agent/profile"
	"agent/prompts"
)

// turn is the state gathered for one turn.
type turn struct {
	session   *Session
	now       time.Time // in the user's zone
	bootstrap bool
	tools     []tool
	specs     []ToolSpec // of tools, as sent: built once a turn
	agentName string
	// input is everything the turn's context is fitted from, gathered once;
	// last is the session's previous request. A turn that compacts fits
	// again from them with the new summary (refit), reading nothing else.
	input     window.Input
	last      string
	tokens    ToolsSize
	assembled *Assembled
	// said is the message redacted at the start; seal sets request (its
	// RequestText, redacted), context and recallAt as state.db keeps them.
	said     string
	request  string
	context  string
	recallAt int
	cpt      float64
}

// Assemble builds exactly the context a turn would send for message, without
// calling the model. `agent prompt` and chat share this path.
func (c *Chat) Assemble(ctx context.Context, s *Session, message string) (*Assembled, error) {
	t, err := c.prepare(ctx, s, message, c.AutoCompact)
	if err != nil {
		return nil, err
	}
	c.seal(t)
	return t.assembled, nil
}

// prepare gathers and assembles a turn; reserveSummary keeps a compaction
// summary's room in the window even before there is a summary.
func (c *Chat) prepare(ctx context.Context, s *Session, message string, reserveSummary bool) (*turn, error) {
	// Recall (a stat walk of the memory files, then the query) overlaps the
	// reads of state.db below: they touch different files.
	type recalled struct {
		hits []Recalled
		err  error
	}
	recallDone := make(chan recalled, 1)
	go func() {
		hits, err := c.recall(ctx, message, c.RecallK)
		recallDone <- recalled{hits, err}
	}()
	records, err := c.Profile.All(ctx)
	if err != nil {
		return nil, err
	}
	get := func(key string) string {
		for _, r := range records {
			if r.Key == key {
				return r.Value
			}
		}
		return ""
	}
	t := &turn{session: s, agentName: get("agent.name"), said: c.redact("message", message)}
	t.bootstrap = t.agentName == "" || get("user.name") == ""
	// The tool list is built once and measured once, in its two parts.
	builtin, integrations := toolsFor(t.bootstrap), c.mcpTools(t.bootstrap)
	if c.NoTools {
		builtin, integrations = nil, nil
	}
	t.tools = append(builtin, integrations...)
	c.counted("tool specs", "")
	t.specs = toolSpecs(t.tools)
	names := toolNames(t.specs[:len(builtin)])

	loc, zone := c.zone(get("user.timezone"))
	t.now = c.Now().In(loc)

	doc, err := c.Soul.Load(ctx)
	if err != nil {
		return nil, err
	}
	for _, w := range doc.Warnings {
		c.notify(w)
	}

	// Only the session's tail: no window can hold more than NumCtx tokens,
	// at most maxCharsPerToken characters each.
	var history []StoredMessage
	var last string // the session's last request, for the cache check below
	var foldBefore int64
	if s.ID != 0 {
		if history, err = c.Sessions.Tail(ctx, *s, c.NumCtx*window.MaxCharsPerToken); err != nil {
			return nil, err
		}
		if last, foldBefore, err = c.Sessions.LastRequest(ctx, *s); err != nil {
			return nil, err
		}
	}
	compacted, compactedSource, err := c.loadSummary(ctx, s)
	if err != nil {
		return nil, err
	}
	prev, hasPrev, err := c.Sessions.Previous(ctx, *s)
	if err != nil {
		return nil, err
	}
	started := t.now
	if s.ID != 0 {
		started = s.CreatedAt
	}
	var before *Session
	if hasPrev {
		before = &prev
	}
	opening := sessionOpening(started, before, loc)
	facts := identityFacts{
		AgentName: t.agentName, UserName: get("user.name"), Today: t.now, Zone: zone,
		Model: c.ModelName, NumCtx: c.NumCtx, Tools: names,
	}
	for _, src := range c.Identity {
		blocks, err := src.Identity(ctx, t.now)
		if err != nil {
			c.notify("identity section: " + err.Error())
			continue
		}
		facts.Blocks = append(facts.Blocks, blocks...)
	}
	identity, identityCuts := identitySection(facts)
	r := <-recallDone
	if r.err != nil {
		c.notify("memory recall skipped: " + r.err.Error())
	}
	// Which hits are the session's own logged turns is known from where its
	// turns were logged, as stored: in the history when it is the whole session.
	logs := window.LogsOf(r.hits)
	ownTurns, whole := window.OwnTurns(history, logs)
	if !whole {
		if ownTurns, err = c.Sessions.LoggedIn(ctx, *s, logs); err != nil {
			return nil, err
		}
	}
	if t.cpt, err = c.Sessions.CharsPerToken(ctx, c.ModelName); err != nil {
		return nil, err
	}

	p := prompts.System()
	if t.bootstrap {
		p = prompts.Bootstrap()
	}
	summary := "# Profile (set by the user; you can only propose changes)\n\n" + neutralise(profile.Summary(records))
	if len(records) == 0 {
		summary = "# Profile\n\n(empty: the names are not set yet)"
	}
	tools := ToolsSize{Builtin: len(builtin), BuiltinChars: c.toolsChars(t.specs[:len(builtin)]),
		MCP: len(integrations), MCPChars: c.toolsChars(t.specs[len(builtin):])}
	in := window.Input{
		Prompt: p, Bootstrap: t.bootstrap, Identity: identity, IdentityCuts: identityCuts,
		Soul: doc.Content, SoulSource: fmt.Sprintf("SOUL.md revision %d", doc.Revision),
		Profile: summary, ProfileSource: fmt.Sprintf("state.db: %d profile records", len(records)),
		Recalled: r.hits, Fenced: c.fence(r.hits), OwnTurns: ownTurns, History: history, FoldBefore: foldBefore, SessionName: s.Name, Note: timeNote(t.now), Opening: opening, Message: message, ToolsChars: tools.BuiltinChars,
		Summary: compacted, SummarySource: compactedSource, ReserveSummary: reserveSummary,
		Placement: c.Placement, NumCtx: c.NumCtx, ModelCtx: c.ModelCtx, IdentityBudget: identityBudget, Reserve: c.reserve(), CharsPerToken: t.cpt, Count: c.count,
	}
	if c.AutoCompact { // a refit may follow: each exchange is joined once for both fits
		in.Joined = map[window.Join]string{}
	}
	t.input, t.last, t.tokens = in, last, tools
	if err := t.fit(); err != nil {
		return nil, err
	}
	return t, nil
}

// fit assembles the turn's context from its gathered input.
func (t *turn) fit() error {
	a, err := window.Assemble(t.input)
	if err != nil {
		return err
	}
	t.assembled, a.Tools = a, t.tokens
	return nil
}

// seal redacts, once each, what the turn keeps of its final fit: the
// context in its two parts (recallAt still says where the passages begin)
// and the request text, kept for the next turn's cache check and compared
// as kept (a secret-shaped string in SOUL.md would end the shared prefix
// every turn), message by message (no secret spans a NUL), each by its place.
func (c *Chat) seal(t *turn) {
	a := t.assembled
	t.context, t.recallAt = redactContext(a.Context, a.RecallAt, c.redact)
	msgs := make([]Message, len(a.Messages))
	for i, m := range a.Messages {
		switch {
		case i == len(a.Messages)-1 && a.Placement == window.PlacementLayer:
			m.Content = t.said
		case i == len(a.Messages)-1:
			m.Content = window.WithContext(t.context, t.said)
		case i >= a.HistoryAt: // replayed from state.db, kept there redacted
		case i == a.HistoryAt-1 && a.Placement == window.PlacementLayer:
			m.Content = t.context
		default:
			m.Content = c.redact("layer", m.Content)
		}
		msgs[i] = m
	}
	t.request = window.RequestText(msgs)
	a.RequestBytes = len(t.request)
	if t.session.ID != 0 {
		a.PrefixReuse = window.SharedPrefix(t.last, t.request)
	}
}

// fence, redact, toolsChars and the tool specs are counted (Chat.count).
func (c *Chat) fence(hits []Recalled) []window.Fenced {
	fenced := make([]window.Fenced, len(hits))
	for i, h := range hits {
		if c.count != nil {
			c.count("fence " + h.Citation())
		}
		fenced[i] = window.Fence(h)
	}
	return fenced
}

func (c *Chat) redact(what, text string) string {
	c.counted("redact ", what)
	text, _ = secrets.Redact(text)
	return text
}

func (c *Chat) toolsChars(specs []ToolSpec) int {
	if len(specs) > 0 { // an empty list is not marshalled
		c.counted("tools marshalled", "")
	}
	return ToolsChars(specs)
}

func (c *Chat) counted(what, of string) {
	if c.count != nil {
		c.count(what + of)
	}
}

// refit fits the turn again after a compaction, reading only the summary.
func (c *Chat) refit(ctx context.Context, t *turn) error {
	var err error
	if t.input.Summary, t.input.SummarySource, err = c.loadSummary(ctx, t.session); err != nil {
		return err
	}
	t.input.ReserveSummary = true
	return t.fit()
}
