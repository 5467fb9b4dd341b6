package core

import (
	"context"
	"fmt"
	"strings"
	"time"

	"agent/core/callview"
	"agent/core/mcp"
	"agent/memory/printable"
)

// MCP connects a chat to the user's integrations (MCP servers): their tools
// join the turn's tools as NAME__tool, and their state shows in the
// identity section (MCP is an IdentitySource).
type MCP struct {
	Manager *mcp.Manager
	// Ask asks the user at the terminal whether a tool not yet allowed may
	// run, showing the whole call; the answer is "y", "n" or "always". nil
	// when there is no terminal: such a call is refused, saying how to
	// allow it.
	Ask func(call Approval) string
}

// Approval is a call shown to the user for approval: what runs (Title),
// every argument in full and escaped (Lines, from callview.Lines, to be
// wrapped to the terminal, and paged when taller, never cut), then the
// question.
type Approval struct {
	Title    string
	Lines    []string
	Question string
}

// maxIdentityIntegrations is how many integrations the identity section
// names; the rest are counted. With 10 the line stays under ~120 tokens.
const maxIdentityIntegrations = 10

var _ IdentitySource = (*MCP)(nil)

// Identity is one capabilities line naming each integration with its tool
// count or why it is unavailable. It changes only when one of them does.
// Both forms are rendered from the integrations' summaries.
func (m *MCP) Identity(ctx context.Context, today time.Time) ([]IdentityBlock, error) {
	sums := m.Manager.Summaries()
	if len(sums) == 0 {
		return nil, nil
	}
	var more string
	if n := len(sums) - maxIdentityIntegrations; n > 0 {
		sums, more = sums[:maxIdentityIntegrations], fmt.Sprintf("and %d more", n)
	}
	long := make([]string, 0, len(sums)+1)
	for _, s := range sums {
		long = append(long, oneLine(s.String(), 80))
	}
	short := groupByState(sums)
	if more != "" {
		long, short = append(long, more), short+"; "+more
	}
	return []IdentityBlock{{Section: SectionCapabilities,
		Lines: []string{"Integrations (their tools are named NAME__tool): " + strings.Join(long, "; ") + "."},
		Short: []string{"Integrations (tools named NAME__tool): " + short + "."}}}, nil
}

// groupByState joins the integrations that share a state into one list per
// state, in the order each state first appears: "a, b: 12 tools" would
// lose the counts, so only entries that share their state are joined
// ("calendar, files: unavailable — not started; github: 12 tools"); a
// shared tool count reads "calendar, mail: 14 tools each", never as a
// total.
func groupByState(sums []mcp.Summary) string {
	var states []string
	names := map[string][]string{}
	each := map[string]bool{}
	for _, s := range sums {
		st := s.State()
		if _, seen := names[st]; !seen {
			states = append(states, st)
		}
		names[st] = append(names[st], s.Name)
		each[st] = s.Why == "" && s.Tools != 1
	}
	parts := make([]string, 0, len(states))
	for _, st := range states {
		label := st
		if len(names[st]) > 1 && each[st] {
			label += " each"
		}
		parts = append(parts, strings.Join(names[st], ", ")+": "+label)
	}
	return strings.Join(parts, "; ")
}

// NoToolsIdentity is the capabilities line for a model without tool
// calling, which is sent no tools at all.
type NoToolsIdentity struct{}

// Identity says that no tool can be used with this model.
func (NoToolsIdentity) Identity(context.Context, time.Time) ([]IdentityBlock, error) {
	return []IdentityBlock{{Section: SectionCapabilities, Lines: []string{
		"Tools: unavailable with this model (it has no tool calling): you cannot search or write memory or use integrations; answer from this context and say so when asked to act."}}}, nil
}

// mcpTools adapts the integrations' offered tools for this turn; none in
// bootstrap, which is about names only.
func (c *Chat) mcpTools(bootstrap bool) []tool {
	if c.MCP == nil || c.MCP.Manager == nil || bootstrap {
		return nil
	}
	var out []tool
	for _, mt := range c.MCP.Manager.Offer() {
		out = append(out, tool{spec: MCPToolSpec(mt), inNormal: true, run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
			return c.runMCP(ctx, mt, map[string]any(args))
		}})
	}
	return out
}

// MCPToolSpec is an integration's tool as the model is shown it.
func MCPToolSpec(mt mcp.Tool) ToolSpec {
	spec := ToolSpec{Name: mt.FullName, Description: mt.Description}
	if spec.Description == "" {
		spec.Description = mt.Name + " (integration " + mt.Server + ")"
	}
	for _, p := range mt.Params {
		spec.Parameters = append(spec.Parameters, ToolParam{Name: p.Name, Type: p.Type, Description: p.Description,
			Required: p.Required, Enum: p.Enum, Items: p.Items})
	}
	return spec
}

// runMCP runs an integration tool once the user allows it, and fences its
// result as untrusted data.
func (c *Chat) runMCP(ctx context.Context, mt mcp.Tool, args map[string]any) (string, error) {
	m := c.MCP.Manager
	allow := fmt.Sprintf("agent mcp allow %s %s", mt.Server, mt.Name)
	switch m.Decision(mt.Server, mt.Name) {
	case "deny":
		return "", fmt.Errorf("refused: the user has denied %s", mt.FullName)
	case "allow":
	default:
		if c.MCP.Ask == nil {
			c.notify(fmt.Sprintf("refused %s: not allowed yet and no terminal to ask; allow it with: %s", mt.FullName, allow))
			return "", fmt.Errorf("refused: the user has not allowed %s yet and is not at a terminal to confirm; tell them they can allow it with: %s", mt.FullName, allow)
		}
		call := Approval{
			Title:    fmt.Sprintf("Run %s (integration %s) with:", printable.Name(mt.Name), mt.Server),
			Lines:    callview.Lines(args),
			Question: "Run it? [y/n/always]",
		}
		switch c.MCP.Ask(call) {
		case "always":
			if err := m.Allow(context.WithoutCancel(ctx), mt.Server, mt.Name); err != nil {
				c.notify(err.Error())
			}
		case "y":
		default:
			return "", fmt.Errorf("refused: the user declined to run %s now; do not call it again unless they ask", mt.FullName)
		}
	}
	res, err := m.Call(ctx, mt, args)
	if err != nil {
		return "", err
	}
	block := mcpResultBlock(mt, res)
	if res.Cut > 0 {
		c.notify(fmt.Sprintf("%s returned %d bytes: cut to %d", mt.FullName, res.Total, res.Total-res.Cut))
	}
	if res.IsError {
		return "", fmt.Errorf("%s reported a failure:\n%s", mt.FullName, block)
	}
	return block, nil
}

// mcpResultBlock fences a result the way recalled memory is fenced: cited,
// marked untrusted, with the characters of chat templates and of the fence
// itself neutralised, and any cut stated.
func mcpResultBlock(mt mcp.Tool, res mcp.Result) string {
	attrs := fmt.Sprintf("source=\"%s\" integration=\"%s\" trust=\"untrusted data\"", neutralise(mt.FullName), neutralise(mt.Server))
	body := strings.TrimRight(neutralise(res.Text), "\n")
	out := "<tool_result " + attrs + ">\n" + body + "\n</tool_result>\n"
	if res.Cut > 0 {
		out += fmt.Sprintf("[cut: the result was %d bytes; only the first %d are shown]\n", res.Total, res.Total-res.Cut)
	}
	return out
}
