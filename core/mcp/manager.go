package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults for Options left zero.
const (
	DefaultStartTimeout = 15 * time.Second
	DefaultCallTimeout  = 60 * time.Second
	// DefaultToolBudget is how many integration tools one session offers:
	// small models choose badly from long lists.
	DefaultToolBudget = 32
	// DefaultMaxResult caps one result, in bytes, before it reaches the model.
	DefaultMaxResult = 16 << 10
	// retryFailed is how long a one-shot turn trusts a recorded failure
	// before trying the server again; retryDown, how long a chat session
	// waits before starting a server that failed or died once more.
	retryFailed = 5 * time.Minute
	retryDown   = 30 * time.Second
)

// Options configure a Manager; zero values take the defaults.
type Options struct {
	Home         string // the workspace: mcp.json, the logs, the servers' working directory
	Store        *Store
	Notify       func(string) // a one-line note for the user (stderr)
	StartTimeout time.Duration
	CallTimeout  time.Duration
	ToolBudget   int
	MaxResult    int
	Getenv       func(string) (string, bool)
	Now          func() time.Time
}

// Manager runs a session's integrations. A chat session (Start) starts
// them all at once; otherwise a server starts only when it is needed: to
// list its tools when none are cached for its configuration, or to run a
// call. A server the user has not approved never starts. It is safe for
// concurrent use; the package comment says which methods start servers
// and in which order the locks are taken.
type Manager struct {
	opts Options
	cfg  *Config

	mu       sync.Mutex
	policy   Policy
	servers  map[string]*server
	eager    bool
	closing  bool
	budgeted bool // the over-budget note was given
}

// server is one integration's state in this process.
type server struct {
	cfg      Server
	resolved Server
	badCfg   error // the entry cannot be used as written
	approved bool  // the user approved this entry, as written, to run
	key      string
	mask     func(string) string // hides expanded ${VAR} values in error texts
	tools    []cachedTool
	listed   bool
	state    string
	lastErr  string
	said     string    // lastErr in the user's terms (said.go)
	tried    time.Time // last start attempt in this process
	failedAt time.Time // when the recorded failure happened
	conn     *conn
	start    sync.Mutex // one start at a time
}

// Open reads <home>/mcp.json and the cached state. A missing file means no
// integrations; a malformed one is an error (the caller chats without).
func Open(ctx context.Context, opts Options) (*Manager, error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.ToolBudget <= 0 {
		opts.ToolBudget = DefaultToolBudget
	}
	if opts.MaxResult <= 0 {
		opts.MaxResult = DefaultMaxResult
	}
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg, err := LoadConfig(filepath.Join(opts.Home, ConfigFile))
	if err != nil {
		return nil, err
	}
	m := &Manager{opts: opts, cfg: cfg, servers: map[string]*server{}, policy: Policy{}}
	if len(cfg.Servers) == 0 {
		return m, nil // the common case costs one stat
	}
	trust, err := opts.Store.trust(ctx, cfg)
	if err != nil {
		return nil, err
	}
	m.policy = trust.policy
	for _, name := range cfg.Names() {
		s := &server{cfg: cfg.Servers[name], state: StateUnknown, approved: trust.approved[name]}
		s.cfg.Name = name
		s.mask = s.cfg.masker(opts.Getenv)
		if s.badCfg = ValidName(name); s.badCfg == nil {
			s.badCfg = s.cfg.Validate()
		}
		if s.badCfg == nil {
			s.resolved, s.badCfg = s.cfg.Resolved(opts.Getenv)
		}
		if s.badCfg != nil {
			s.state, s.lastErr = StateFailed, s.badCfg.Error()
			s.said = s.lastErr // a configuration error is said in the user's terms already
			m.servers[name] = s
			continue
		}
		// the expanded entry's hash: the cache of its tools holds only while
		// it stays the same, so a changed secret lists again
		s.key = s.resolved.EntryHash()
		rec, ok, err := opts.Store.get(ctx, name)
		if err != nil {
			return nil, err
		}
		if ok && rec.configKey == s.key {
			s.tools, s.listed, s.state, s.lastErr, s.said = rec.tools, rec.listed, rec.state, rec.lastError, rec.said
			if s.said == "" { // recorded before it was said: shown whole
				s.said = s.lastErr
			}
			if t, err := time.Parse(time.RFC3339, rec.updatedAt); err == nil {
				s.failedAt = t
			}
		}
		m.servers[name] = s
	}
	return m, nil
}

// Config is the configuration the manager was opened with.
func (m *Manager) Config() *Config { return m.cfg }

// Empty reports whether no integration is configured.
func (m *Manager) Empty() bool { return len(m.servers) == 0 }

func (m *Manager) notify(msg string) {
	if m.opts.Notify != nil {
		m.opts.Notify(msg)
	}
}

func (m *Manager) names() []string {
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Start is a chat session's start: every approved server at once, each
// within the start timeout. Failures are reported and never returned: the
// chat goes on without that server's tools.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	m.eager = true
	m.mu.Unlock()
	m.startAll(ctx, func(*server) bool { return true })
}

// Prepare is a one-shot turn's start: only servers whose tools are not
// cached for their configuration (or whose failure is old) are started, to
// list them. Everything else waits for a call.
func (m *Manager) Prepare(ctx context.Context) {
	now := m.opts.Now()
	m.startAll(ctx, func(s *server) bool {
		if s.listed && s.state == StateOK {
			return false
		}
		return s.state == StateUnknown || now.Sub(s.failedAt) >= retryFailed
	})
}

// Probe starts every approved server and lists its tools, for `agent mcp
// list` and doctor.
func (m *Manager) Probe(ctx context.Context) {
	m.startAll(ctx, func(*server) bool { return true })
}

// Revive is a chat session's step before each turn: a server that died or
// failed to start is started again, in the background, at most once per
// retryDown; its tools come back on a later turn. Outside a chat session
// (no Start) it does nothing.
func (m *Manager) Revive(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.eager || m.closing {
		return
	}
	now := m.opts.Now()
	for _, name := range m.names() {
		s := m.servers[name]
		if !s.startable() || (s.conn != nil && s.conn.alive()) || now.Sub(s.tried) < retryDown {
			continue
		}
		s.tried = now // the next turn does not start it a second time
		go func() { _, _ = m.ensure(ctx, s) }()
	}
}

// startable says whether s may be started at all (m.mu held).
func (s *server) startable() bool { return s.badCfg == nil && s.approved }

// startAll starts the servers want picks, together, and waits for them.
func (m *Manager) startAll(ctx context.Context, want func(*server) bool) {
	var picked []*server
	m.mu.Lock()
	for _, name := range m.names() {
		if s := m.servers[name]; s.startable() && want(s) {
			picked = append(picked, s)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range picked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = m.ensure(ctx, s)
		}()
	}
	wg.Wait()
}

// ensure returns a live connection to s, starting the server if needed.
// Lock order: s.start, then m.mu, which is held only to read and write
// fields, never while the server starts.
func (m *Manager) ensure(ctx context.Context, s *server) (*conn, error) {
	s.start.Lock()
	defer s.start.Unlock()
	m.mu.Lock()
	switch {
	case s.badCfg != nil:
		m.mu.Unlock()
		return nil, s.badCfg
	case !s.approved:
		m.mu.Unlock()
		return nil, fmt.Errorf("not approved to run (approve it with: agent mcp approve %s)", s.cfg.Name)
	case s.conn != nil && s.conn.alive():
		c := s.conn
		m.mu.Unlock()
		return c, nil
	case m.closing:
		m.mu.Unlock()
		return nil, errNotRunning
	}
	s.tried = m.opts.Now()
	resolved := s.resolved
	m.mu.Unlock()

	c, listed, err := m.connectAndList(ctx, resolved)
	if err != nil && ctx.Err() != nil {
		// The agent itself is stopping (Ctrl-C, SIGTERM): the server did
		// not fail, and recording it as failed would keep the next
		// one-shot turn from offering its tools for retryFailed.
		return nil, fmt.Errorf("integration %s: start interrupted: %w", resolved.Name, ctx.Err())
	}
	store := context.WithoutCancel(ctx)
	if err != nil {
		msg := s.mask("failed to start: " + err.Error())
		told := s.mask(said(err, resolved.Target(), msg))
		m.mu.Lock()
		s.state, s.lastErr, s.said, s.failedAt = StateFailed, msg, told, m.opts.Now()
		m.mu.Unlock()
		if serr := m.opts.Store.putFailed(store, resolved.Name, s.key, StateFailed, msg, told); serr != nil {
			m.notify(serr.Error())
		}
		m.notify(fmt.Sprintf("integration %s unavailable: %s (log: %s)", resolved.Name, told, LogPath(m.opts.Home, resolved.Name)))
		return nil, &maskedError{msg, err}
	}
	m.mu.Lock()
	closing := m.closing
	if !closing {
		s.conn, s.tools, s.listed, s.state, s.lastErr, s.said = c, listed, true, StateOK, "", ""
	}
	m.mu.Unlock()
	if closing {
		c.close()
		return nil, errNotRunning
	}
	if serr := m.opts.Store.putListed(store, resolved.Name, s.key, listed); serr != nil {
		m.notify(serr.Error())
	}
	go m.watch(s, c)
	return c, nil
}

// connectAndList starts the server and lists its tools within the start
// timeout; on failure nothing is left running.
func (m *Manager) connectAndList(ctx context.Context, resolved Server) (*conn, []cachedTool, error) {
	startCtx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	c, err := connect(startCtx, resolved, m.opts.Home, resolved.environ(m.opts.Getenv))
	if err != nil {
		return nil, nil, err
	}
	tools, err := c.listTools(startCtx)
	if err != nil {
		c.close()
		return nil, nil, fmt.Errorf("list tools: %w", err)
	}
	listed := make([]cachedTool, 0, len(tools))
	for _, t := range tools {
		listed = append(listed, cachedTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return c, listed, nil
}

// watch reports a server that exits while the agent still needs it.
func (m *Manager) watch(s *server, c *conn) {
	<-c.done
	m.mu.Lock()
	if m.closing || s.conn != c {
		m.mu.Unlock()
		return
	}
	c.closed.Do(func() {}) // the session is over; close only kills leftovers
	s.conn = nil
	died := c.describe(errors.New("stopped"))
	msg := s.mask(died.Error())
	told := s.mask(said(died, s.cfg.Target(), msg))
	s.state, s.lastErr, s.said, s.failedAt = StateDied, msg, told, m.opts.Now()
	m.mu.Unlock()
	c.kill()
	if err := m.opts.Store.putFailed(context.Background(), s.cfg.Name, s.key, StateDied, msg, told); err != nil {
		m.notify(err.Error())
	}
	m.notify(fmt.Sprintf("integration %s %s; its tools are unavailable until it is back (log: %s)", s.cfg.Name, msg, LogPath(m.opts.Home, s.cfg.Name)))
}

// Close stops every server, all at once, and waits for them.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closing = true
	var conns []*conn
	for _, s := range m.servers {
		if s.conn != nil {
			conns = append(conns, s.conn)
			s.conn = nil
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
}

// available says whether s's tools are offered now (m.mu held). A chat
// session offers the tools of running servers only; otherwise cached tools
// are offered and the server starts on the first call. It only reads.
func (m *Manager) available(s *server) bool {
	if !s.startable() || !s.listed {
		return false
	}
	if m.eager {
		return s.conn != nil && s.conn.alive()
	}
	return s.state == StateOK
}

// Tools are the integration tools offered now, within the tool budget:
// denied tools never, allowed ones first, then by server and name. It only
// reads; Offer is the turn's call, which also tells the user about the
// budget.
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	tools, _ := m.offered()
	return tools
}

// Offer is Tools for a turn that sends them to the model: the first time
// more tools are offered than the budget holds, it also tells the user how
// many were left out (once a Manager).
func (m *Manager) Offer() []Tool {
	m.mu.Lock()
	tools, all := m.offered()
	note := all > len(tools) && !m.budgeted
	if note {
		m.budgeted = true
	}
	m.mu.Unlock()
	if note {
		m.notify(fmt.Sprintf("%d integration tools, over the budget of %d: %d left out (deny some with: agent mcp deny NAME TOOL)",
			all, m.opts.ToolBudget, all-len(tools)))
	}
	return tools
}

// offered is Tools (m.mu held), with how many tools there were before the
// budget cut.
func (m *Manager) offered() (tools []Tool, all int) {
	var out []Tool
	for _, name := range m.names() {
		s := m.servers[name]
		if !m.available(s) {
			continue
		}
		for _, t := range m.toolsOf(s) {
			if t.Policy != "deny" {
				out = append(out, t)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Policy == "allow" && out[j].Policy != "allow" })
	return out[:min(len(out), m.opts.ToolBudget)], len(out)
}

func (m *Manager) toolsOf(s *server) []Tool {
	out := make([]Tool, 0, len(s.tools))
	for _, ct := range s.tools {
		params, dropped := convertSchema(ct.InputSchema)
		out = append(out, Tool{
			Server: s.cfg.Name, Name: ct.Name, FullName: fullName(s.cfg.Name, ct.Name),
			Description: ct.Description, Params: params, Dropped: dropped,
			Policy: m.policy.Decision(s.cfg.Name, ct.Name),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ServerTools lists every tool a server is known to have (denied ones too),
// for `agent mcp tools`; ok is false for an unknown server.
func (m *Manager) ServerTools(name string) (tools []Tool, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.servers[name]
	if s == nil {
		return nil, false
	}
	return m.toolsOf(s), true
}

// Status is one integration as `agent mcp list` shows it.
type Status struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Target    string `json:"target"` // the command line or the URL, as configured
	State     string `json:"state"`  // ok, failed, died, unknown, or "not approved"
	Approved  bool   `json:"approved"`
	Tools     int    `json:"tools"`
	LastError string `json:"last_error"` // in the user's terms (said.go)
	// Detail is the last failure's whole error chain, for --verbose and
	// bug reports; "" when there was none.
	Detail string `json:"detail"`
	Log    string `json:"log"`
}

// StateNotApproved is the state shown for a server the user has not
// approved to run (it is never stored: approval is a row of its own).
const StateNotApproved = "not approved"

// Statuses lists every integration, sorted by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	for _, name := range m.names() {
		s := m.servers[name]
		st := Status{Name: name, Type: s.cfg.Kind(), Target: s.cfg.Target(), State: s.state, Approved: s.approved,
			LastError: s.said, Detail: s.lastErr, Tools: len(s.tools)}
		if !s.approved && s.badCfg == nil {
			st.State = StateNotApproved
		}
		if st.Type != TypeHTTP {
			st.Log = LogPath(m.opts.Home, name)
		}
		out = append(out, st)
	}
	return out
}

// Summary is one integration as the identity section names it: the
// number of tools offered, or why none are.
type Summary struct {
	Name  string
	Tools int    // tools offered, not denied (when Why is "")
	Why   string // why it is unavailable ("not started", "not approved"…); "" when available
}

// State is the summary without the name: "12 tools", "unavailable —
// failed to start".
func (s Summary) State() string {
	if s.Why != "" {
		return "unavailable — " + s.Why
	}
	return fmt.Sprintf("%d %s", s.Tools, plural(s.Tools, "tool"))
}

// String is "github: 12 tools".
func (s Summary) String() string { return s.Name + ": " + s.State() }

// Summaries describe each integration for the identity section, sorted by
// name. They change only when an integration's state changes, and reading
// them starts nothing.
func (m *Manager) Summaries() []Summary {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Summary
	for _, name := range m.names() {
		s := m.servers[name]
		sum := Summary{Name: name}
		switch {
		case s.badCfg != nil:
			sum.Why = "misconfigured"
		case !s.approved:
			sum.Why = "not approved"
		case m.available(s):
			for _, t := range m.toolsOf(s) {
				if t.Policy != "deny" {
					sum.Tools++
				}
			}
		case s.state == StateDied:
			sum.Why = "stopped"
		case s.state == StateFailed:
			sum.Why = "failed to start"
		default:
			sum.Why = "not started"
		}
		out = append(out, sum)
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Lookup finds an offered tool by the name the model called.
func (m *Manager) Lookup(fullName string) (Tool, bool) {
	for _, t := range m.Tools() {
		if t.FullName == fullName {
			return t, true
		}
	}
	return Tool{}, false
}

// Allow records the user's "always" for one tool, for the server as it
// is configured now.
func (m *Manager) Allow(ctx context.Context, server, tool string) error {
	m.mu.Lock()
	s := m.servers[server]
	m.mu.Unlock()
	if s == nil {
		return fmt.Errorf("no integration named %s", server)
	}
	if err := m.opts.Store.SetPolicy(ctx, server, s.cfg.TargetKey(), tool, "allow"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.policy[server] == nil {
		m.policy[server] = map[string]string{}
	}
	m.policy[server][tool] = "allow"
	return nil
}

// Result is what one call returned, as text for the model.
type Result struct {
	Text    string
	IsError bool // the tool itself reported a failure
	Cut     int  // bytes left out to respect MaxResult (0: none)
	Total   int  // bytes the server returned
}

// Call runs a tool, starting its server if needed, within the call timeout.
func (m *Manager) Call(ctx context.Context, t Tool, args map[string]any) (Result, error) {
	m.mu.Lock()
	s := m.servers[t.Server]
	m.mu.Unlock()
	if s == nil {
		return Result{}, fmt.Errorf("no integration named %s", t.Server)
	}
	c, err := m.ensure(ctx, s)
	if err != nil {
		return Result{}, fmt.Errorf("integration %s is unavailable: %w", t.Server, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	text, isErr, err := c.call(callCtx, t.Name, args)
	if err != nil {
		if callCtx.Err() != nil && ctx.Err() == nil {
			return Result{}, fmt.Errorf("%s gave no answer within %s; the call was cancelled", t.FullName, m.opts.CallTimeout)
		}
		return Result{}, &maskedError{s.mask(err.Error()), err}
	}
	res := Result{Text: text, IsError: isErr, Total: len(text)}
	if len(text) > m.opts.MaxResult {
		cut := m.opts.MaxResult
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		res.Text, res.Cut = text[:cut], len(text)-cut
	}
	return res, nil
}

// maskedError is an error shown with its text masked (the values of the
// entry's ${VAR}s written back as ${VAR}) that still unwraps to the error it
// was made from, so a caller sees a cancellation (errors.Is) or the server's
// own error (errors.As) through the mask.
type maskedError struct {
	text string
	err  error
}

func (e *maskedError) Error() string { return e.text }
func (e *maskedError) Unwrap() error { return e.err }

// Decision is the user's current decision for a tool: allow, deny or ask.
func (m *Manager) Decision(server, tool string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.policy.Decision(server, tool)
}
