package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/mcp"
	"agent/memory/printable"
)

func (a *app) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "integrations: MCP servers whose tools the assistant may use (<home>/mcp.json)",
		Description: "Approvals (approve, and add's own) and allow/deny decisions are kept in this\n" +
			"machine's state.db and do not travel to your other devices with the profile,\n" +
			"reminders and jobs: a server approved on one machine must be approved, and its\n" +
			"tools allowed, on each (docs/decisions-journal.md).",
		Commands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a server: NAME -- COMMAND ARGS... (stdio) or NAME --url URL (HTTP)",
				ArgsUsage: "NAME [-- COMMAND ARGS...]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "url", Usage: "the server's streamable HTTP endpoint"},
					&cli.StringSliceFlag{Name: "env", Usage: "`KEY=VALUE` for the server's environment (${VAR} is expanded at start)"},
					&cli.StringSliceFlag{Name: "header", Usage: "`KEY=VALUE` HTTP header (${VAR} is expanded at start)"},
				},
				Action: a.runMCPAdd,
			},
			{
				Name:  "list",
				Usage: "every server: state, tool count, last error (starts each to check it)",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "cached", Usage: "show the last known state without starting anything"},
					&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show each failure's whole error chain"},
				},
				Action: a.runMCPList,
			},
			{
				Name:      "tools",
				Usage:     "the tools of one server or all: name, allowed?, description, schema parts the model is not shown",
				ArgsUsage: "[NAME]",
				Action:    a.runMCPTools,
			},
			{
				Name:      "remove",
				Usage:     "remove a server, its cached tools and its allow/deny decisions",
				ArgsUsage: "NAME",
				Action:    a.runMCPRemove,
			},
			{
				Name:      "allow",
				Usage:     "let the assistant run a server's tool (or all its tools) without asking",
				ArgsUsage: "NAME [TOOL]",
				Action:    a.mcpPolicyAction("allow"),
			},
			{
				Name:      "deny",
				Usage:     "never offer a server's tool (or all its tools) to the model",
				ArgsUsage: "NAME [TOOL]",
				Action:    a.mcpPolicyAction("deny"),
			},
			{
				Name:      "approve",
				Usage:     "let the assistant start a server as mcp.json now writes it (imported or edited by hand)",
				ArgsUsage: "NAME",
				Action:    a.runMCPApprove,
			},
			a.mcpServeCommand(),
			{
				Name:      "import",
				Usage:     "add the servers of another client's config (.mcp.json, claude_desktop_config.json), showing each command line and asking to approve them",
				ArgsUsage: "FILE",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "yes", Usage: "approve the imported servers without asking (for scripts)"},
				},
				Action: a.runMCPImport,
			},
		},
	}
}

// mcpProbeTimeout bounds how long list and tools wait for a server.
const mcpProbeTimeout = 20 * time.Second

func mcpConfigPath(ws *core.Workspace) string { return ws.Path(mcp.ConfigFile) }

// openMCP opens the integrations of a workspace for a command.
func (a *app) openMCP(ctx context.Context, ws *core.Workspace, notify func(string)) (*mcp.Manager, error) {
	return mcp.Open(ctx, mcp.Options{Home: ws.Home, Store: mcp.NewStore(ws.State, a.now), Notify: notify, StartTimeout: mcpProbeTimeout, Now: a.now})
}

// withMCPConfig opens the workspace and reads mcp.json for fn.
func (a *app) withMCPConfig(ctx context.Context, fn func(ws *core.Workspace, cfg *mcp.Config) error) error {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	cfg, err := mcp.LoadConfig(mcpConfigPath(ws))
	if err != nil {
		return err
	}
	return fn(ws, cfg)
}

// editMCPConfig applies change to mcp.json under its lock and writes it
// back atomically.
func (a *app) editMCPConfig(ctx context.Context, change func(ws *core.Workspace, cfg *mcp.Config) error) error {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	return mcp.UpdateConfig(ctx, mcpConfigPath(ws), func(cfg *mcp.Config) error { return change(ws, cfg) })
}

// errNoServer is an unknown server name (exit 3).
func errNoServer(ws *core.Workspace, name string) error {
	return &codedError{code: exitNotFound, err: fmt.Errorf("no server %s in %s (see: agent mcp list)", name, mcpConfigPath(ws))}
}

func keyValues(list []string, what string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--%s %q: want KEY=VALUE", what, kv)
		}
		m[k] = v
	}
	return m, nil
}

func (a *app) runMCPAdd(ctx context.Context, cmd *cli.Command) error {
	args := cmd.Args().Slice()
	if len(args) == 0 {
		return usagef("usage: agent mcp add NAME -- COMMAND ARGS... | agent mcp add NAME --url URL")
	}
	name, rest := args[0], args[1:]
	if err := mcp.ValidName(name); err != nil {
		return usagef("%v", err)
	}
	env, err := keyValues(cmd.StringSlice("env"), "env")
	if err != nil {
		return err
	}
	headers, err := keyValues(cmd.StringSlice("header"), "header")
	if err != nil {
		return err
	}
	s := mcp.Server{Name: name, Env: env, Headers: headers}
	switch url := cmd.String("url"); {
	case url != "" && len(rest) > 0:
		return usagef("give either --url URL or -- COMMAND ARGS..., not both")
	case url != "":
		s.Type, s.URL = mcp.TypeHTTP, url
	case len(rest) > 0:
		s.Command, s.Args = rest[0], rest[1:]
	default:
		return usagef("no server given: agent mcp add %s -- COMMAND ARGS... or --url URL", name)
	}
	if err := s.Validate(); err != nil {
		return usagef("%v", err)
	}
	err = a.editMCPConfig(ctx, func(ws *core.Workspace, cfg *mcp.Config) error {
		if _, ok := cfg.Servers[name]; ok {
			return usagef("server %s already exists in %s (remove it first: agent mcp remove %s)", name, mcpConfigPath(ws), name)
		}
		cfg.Servers[name] = s
		return nil
	})
	if err != nil {
		return err
	}
	// The user typed the command line: adding it is approving it.
	if err := a.approveMCP(ctx, s); err != nil {
		return err
	}
	a.infof("added %s; check it with: agent mcp list", name)
	return nil
}

// approveMCP records the user's approval of one server as written.
func (a *app) approveMCP(ctx context.Context, servers ...mcp.Server) error {
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	st := mcp.NewStore(ws.State, a.now)
	for _, s := range servers {
		if err := st.Approve(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) runMCPApprove(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usagef("usage: agent mcp approve NAME")
	}
	name := cmd.Args().First()
	return a.withMCPConfig(ctx, func(ws *core.Workspace, cfg *mcp.Config) error {
		s, ok := cfg.Servers[name]
		if !ok {
			return errNoServer(ws, name)
		}
		if err := s.Validate(); err != nil {
			return err
		}
		if err := mcp.NewStore(ws.State, a.now).Approve(ctx, s); err != nil {
			return err
		}
		a.infof("approved %s to run: %s", name, s.Display())
		return nil
	})
}

func (a *app) runMCPRemove(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usagef("usage: agent mcp remove NAME")
	}
	name := cmd.Args().First()
	return a.editMCPConfig(ctx, func(ws *core.Workspace, cfg *mcp.Config) error {
		if _, ok := cfg.Servers[name]; !ok {
			return errNoServer(ws, name)
		}
		delete(cfg.Servers, name)
		return mcp.NewStore(ws.State, a.now).Forget(ctx, name)
	})
}

func (a *app) runMCPImport(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usagef("usage: agent mcp import FILE")
	}
	file := cmd.Args().First()
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("import %s: %w", file, err)
	}
	src, err := mcp.ParseConfig(data)
	if err != nil {
		return usagef("import %s: not an mcpServers config: %v", file, err)
	}
	if len(src.Servers) == 0 {
		return &codedError{code: exitNotFound, err: fmt.Errorf("import %s: no mcpServers in it", file)}
	}
	var added, skipped []string
	var imported []mcp.Server
	err = a.editMCPConfig(ctx, func(ws *core.Workspace, cfg *mcp.Config) error {
		for _, orig := range src.Names() {
			s := src.Servers[orig]
			name := orig
			if mcp.ValidName(name) != nil {
				name = mcp.SanitizeName(orig)
			}
			s.Name = name
			_, exists := cfg.Servers[name]
			switch {
			case exists:
				skipped = append(skipped, fmt.Sprintf("%s (a server of that name exists)", orig))
			case s.Validate() != nil:
				skipped = append(skipped, fmt.Sprintf("%s (%v)", orig, s.Validate()))
			default:
				cfg.Servers[name] = s
				imported = append(imported, s)
				if name != orig {
					name += " (was " + strconv.Quote(orig) + ")"
				}
				added = append(added, name)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range skipped {
		a.warnf("not imported: %s", s)
	}
	a.infof("imported %d of %d: %s", len(added), len(src.Servers), strings.Join(added, ", "))
	if len(imported) == 0 {
		return nil
	}
	return a.approveImported(ctx, imported, cmd.Bool("yes"))
}

// approveImported shows what each imported server would run and approves
// them on the user's word: --yes, or "y" on a terminal. Otherwise they stay
// in mcp.json, not approved: nothing starts them until agent mcp approve.
func (a *app) approveImported(ctx context.Context, servers []mcp.Server, yes bool) error {
	for _, s := range servers {
		a.infof("  %s: %s", s.Name, s.Display())
	}
	if !yes && a.io.InTTY && a.io.ErrTTY {
		yes = a.confirm("approve " + printable.Plural(len(servers), "this server", fmt.Sprintf("these %d servers", len(servers))) + " to run?")
	}
	if !yes {
		names := make([]string, 0, len(servers))
		for _, s := range servers {
			names = append(names, s.Name)
		}
		a.warnf("not approved: nothing starts %s until you run: agent mcp approve NAME", strings.Join(names, ", "))
		return nil
	}
	if err := a.approveMCP(ctx, servers...); err != nil {
		return err
	}
	a.infof("approved %d to run", len(servers))
	return nil
}

func (a *app) mcpPolicyAction(decision string) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		if n := cmd.Args().Len(); n < 1 || n > 2 {
			return usagef("usage: agent mcp %s NAME [TOOL]", decision)
		}
		name, tool := cmd.Args().Get(0), cmd.Args().Get(1)
		err := a.withMCPConfig(ctx, func(ws *core.Workspace, cfg *mcp.Config) error {
			s, ok := cfg.Servers[name]
			if !ok {
				return errNoServer(ws, name)
			}
			return mcp.NewStore(ws.State, a.now).SetPolicy(ctx, name, s.TargetKey(), tool, decision)
		})
		if err != nil {
			return err
		}
		what := "every tool of " + name
		if tool != "" {
			what = name + " " + tool
		}
		a.infof("%s: %s", decision, what)
		return nil
	}
}

func (a *app) runMCPList(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("mcp list takes no arguments")
	}
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	m, err := a.openMCP(ctx, ws, func(string) {}) // failures show in the table
	if err != nil {
		return err
	}
	defer m.Close()
	if !cmd.Bool("cached") {
		m.Probe(ctx)
	}
	sts := m.Statuses()
	if a.jsonOut {
		if sts == nil {
			sts = []mcp.Status{}
		}
		return a.writeJSON(sts)
	}
	if len(sts) == 0 {
		a.infof("no integrations in %s (add one: agent mcp add NAME -- COMMAND ARGS...)", mcpConfigPath(ws))
		return nil
	}
	if cmd.Bool("verbose") { // the inner chain, as recorded, instead of its plain words
		for i := range sts {
			if sts[i].Detail != "" {
				sts[i].LastError = sts[i].Detail
			}
		}
	}
	if a.io.OutTTY {
		tw := a.newTable("NAME", "STATE", "TOOLS", "TYPE", "TARGET", "LAST ERROR")
		for _, s := range sts {
			tw.row(s.Name, s.State, strconv.Itoa(s.Tools), s.Type, s.Target, s.LastError)
		}
		return tw.flush()
	}
	for _, s := range sts {
		if err := writeTSV(a.io.Out, s.Name, s.State, strconv.Itoa(s.Tools), s.Type, s.Target, s.LastError); err != nil {
			return err
		}
	}
	return nil
}

// mcpToolJSON is one row of `agent mcp tools --json`; chars is its size
// as the model is sent it (core.ToolsChars).
type mcpToolJSON struct {
	mcp.Tool
	Params []core.ToolParam `json:"params"`
	Chars  int              `json:"chars"`
}

func (a *app) runMCPTools(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() > 1 {
		return usagef("usage: agent mcp tools [NAME]")
	}
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	m, err := a.openMCP(ctx, ws, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		return err
	}
	defer m.Close()
	names := m.Config().Names()
	if only := cmd.Args().First(); only != "" {
		if !slices.Contains(names, only) {
			return errNoServer(ws, only)
		}
		names = []string{only}
	}
	m.Prepare(ctx) // lists the servers whose tools are not cached
	for _, st := range m.Statuses() {
		if st.State == mcp.StateNotApproved && slices.Contains(names, st.Name) {
			a.warnf("%s is not approved to run, so its tools are unknown (approve it: agent mcp approve %s)", st.Name, st.Name)
		}
	}
	var rows []mcpToolJSON
	for _, n := range names {
		tools, _ := m.ServerTools(n)
		for _, t := range tools {
			r := mcpToolJSON{Tool: t, Params: []core.ToolParam{}, Chars: core.ToolsChars([]core.ToolSpec{core.MCPToolSpec(t)})}
			if r.Dropped == nil {
				r.Dropped = []string{}
			}
			for _, p := range t.Params {
				r.Params = append(r.Params, core.ToolParam{Name: p.Name, Type: p.Type, Description: p.Description, Required: p.Required, Enum: p.Enum, Items: p.Items})
			}
			rows = append(rows, r)
		}
	}
	if a.jsonOut {
		if rows == nil {
			rows = []mcpToolJSON{}
		}
		return a.writeJSON(rows)
	}
	if len(rows) == 0 {
		return &codedError{code: exitNotFound, err: fmt.Errorf("no tools known (see: agent mcp list)")}
	}
	var sent []core.ToolSpec
	for _, r := range rows {
		if r.Policy != "deny" {
			sent = append(sent, core.MCPToolSpec(r.Tool))
		}
	}
	a.infof("%d of these tools are sent to the model with every request: %d characters of JSON", len(sent), core.ToolsChars(sent))
	for _, r := range rows {
		var ps []string
		for _, p := range r.Params {
			s := p.Name + ":" + p.Type
			if p.Required {
				s += "*"
			}
			ps = append(ps, s)
		}
		if err := writeTSV(a.io.Out, r.FullName, r.Policy, strings.Join(ps, " "), oneLineDesc(r.Description), strings.Join(r.Dropped, " ")); err != nil {
			return err
		}
	}
	return nil
}

func oneLineDesc(s string) string { return printable.Cut(printable.OneLine(s), 120) }

// startIntegrations wires the workspace's integrations into a chat: their
// tools and their identity line. It never fails the chat: a broken
// mcp.json is reported and the chat goes on without integrations.
func (a *app) startIntegrations(ctx context.Context, s *chatSession) {
	m, err := mcp.Open(ctx, mcp.Options{Home: s.ws.Home, Store: mcp.NewStore(s.ws.State, a.now),
		Notify: s.notes.note, Now: a.now})
	if err != nil {
		a.warnf("integrations unavailable: %v", err)
		return
	}
	if m.Empty() {
		return
	}
	s.mcp = m
	s.chat.MCP = &core.MCP{Manager: m}
	s.chat.Identity = append(s.chat.Identity, s.chat.MCP)
}

// useModelCapabilities adapts the chat to a model without tool calling: no
// tools are sent, no integration starts, and the identity section says so.
func (a *app) useModelCapabilities(s *chatSession, info core.ModelInfo) {
	if slices.Contains(info.Capabilities, "tools") {
		return
	}
	s.chat.NoTools = true
	s.chat.Identity = slices.DeleteFunc(s.chat.Identity, func(src core.IdentitySource) bool { return src == core.IdentitySource(s.chat.MCP) })
	s.chat.Identity = append(s.chat.Identity, core.NoToolsIdentity{})
	s.chat.MCP = nil
	if s.mcp != nil {
		s.mcp.Close()
		s.mcp = nil
	}
}

// sayNoTools tells a person at the REPL, once, that the model chats without
// tools, and so cannot store what it is told (names included: a first
// meeting's "let's get to know each other" would otherwise promise what it
// cannot keep). One-shot chats and prompt do not repeat it on every run:
// doctor reports it, and the model is told in its identity section.
func (a *app) sayNoTools(s *chatSession) {
	if !s.chat.NoTools {
		return
	}
	a.infof("%s has no tool calling: chatting without tools, so it cannot store names or notes; set names with: agent profile set user.name NAME (and agent.name), notes with /remember", s.chat.ModelName)
}
