package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
	// input is everything the turn's context is fitted from, gathered
	// once; last is the session's previous request. A turn that compacts
	// fits again from them with the new summary (refit), reading nothing
	// else again.
	input     window.Input
	last      string
	tokens    ToolsSize
	assembled *Assembled
	request   string // requestText of the assembled messages
	cpt       float64
	// extends says the request begins with the session's last one whole:
	// the model's cache holds all of that (false on a window move).
	extends bool
}

// Assemble builds exactly the context a turn would send for message, without
// calling the model. `agent prompt` and chat share this path.
func (c *Chat) Assemble(ctx context.Context, s *Session, message string) (*Assembled, error) {
	t, err := c.prepare(ctx, s, message, c.AutoCompact)
	if err != nil {
		return nil, err
	}
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
	t := &turn{session: s, agentName: get("agent.name")}
	t.bootstrap = t.agentName == "" || get("user.name") == ""
	builtin, integrations := toolsFor(t.bootstrap), c.mcpTools(t.bootstrap)
	names := builtinNames(builtin, c.NoTools)
	t.tools = append(builtin, integrations...)
	if c.NoTools {
		t.tools, builtin, integrations = nil, nil, nil
	}
	t.specs = toolSpecs(t.tools)

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
	// Which hits are this session's own logged turns is known from where
	// its turns were logged, as stored with them.
	var logs []string
	for _, h := range r.hits {
		if strings.HasPrefix(h.Path, "logs/") && !slices.Contains(logs, h.Path) {
			logs = append(logs, h.Path)
		}
	}
	ownTurns, err := c.Sessions.LoggedIn(ctx, *s, logs)
	if err != nil {
		return nil, err
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
	tools := ToolsSize{Builtin: len(builtin), BuiltinChars: ToolsChars(toolSpecs(builtin)),
		MCP: len(integrations), MCPChars: ToolsChars(toolSpecs(integrations))}
	in := window.Input{
		Prompt: p, Bootstrap: t.bootstrap, Identity: identity, IdentityCuts: identityCuts,
		Soul: doc.Content, SoulSource: fmt.Sprintf("SOUL.md revision %d", doc.Revision),
		Profile: summary, ProfileSource: fmt.Sprintf("state.db: %d profile records", len(records)),
		Recalled: r.hits, OwnTurns: ownTurns, History: history, FoldBefore: foldBefore, SessionName: s.Name, Note: timeNote(t.now), Opening: opening, Message: message, ToolsChars: tools.BuiltinChars,
		Summary: compacted, SummarySource: compactedSource, ReserveSummary: reserveSummary,
		Placement: c.Placement, NumCtx: c.NumCtx, ModelCtx: c.ModelCtx, IdentityBudget: identityBudget, Reserve: c.reserve(), CharsPerToken: t.cpt,
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
	t.assembled = a
	a.Tools = t.tokens
	// The request text is kept (with the message) for the next turn's cache
	// check as state.db keeps everything: with its secrets replaced. So it
	// is compared as it is kept: a secret-shaped string in SOUL.md or the
	// profile would otherwise end the shared prefix on every turn.
	t.request, _ = secrets.Redact(window.RequestText(a.Messages))
	a.RequestBytes = len(t.request)
	if t.session.ID != 0 {
		a.PrefixReuse = window.SharedPrefix(t.last, t.request)
		t.extends = a.PrefixReuse == len(t.last)
	}
	return nil
}

// refit fits the turn again after a compaction: only the session's summary
// is read again; everything else is as gathered.
func (c *Chat) refit(ctx context.Context, t *turn) error {
	var err error
	if t.input.Summary, t.input.SummarySource, err = c.loadSummary(ctx, t.session); err != nil {
		return err
	}
	t.input.ReserveSummary = true
	return t.fit()
}

// builtinNames are the names of the built-in tools offered this turn: the
// identity section lists them; an integration's tools are summed up on
// its own line (NAME__tool), so tens of them do not fill the section.
func builtinNames(builtin []tool, noTools bool) []string {
	if noTools {
		return nil
	}
	return toolNames(toolSpecs(builtin))
}
