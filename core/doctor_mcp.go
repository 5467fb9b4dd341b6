package core

import (
	"context"
	"fmt"
	"strings"
	"time"

	"agent/core/mcp"
)

// doctorMCPTimeout bounds each integration's start in doctor, as
// doctorOllamaTimeout bounds each question to Ollama.
const doctorMCPTimeout = 10 * time.Second

// doctorIntegrations is the "integrations" line of `agent doctor`: every
// server in mcp.json is started and asked for its tools, as `agent mcp list`
// does (and, like it, what it finds is cached in state.db), then stopped. A
// chat never stops for a broken integration (it goes on without its tools),
// so doctor is where one is seen: a malformed mcp.json, a misconfigured
// entry, a server not approved (which doctor does not start either) or one
// that fails to start fails the check, each named with its error.
func doctorIntegrations(ctx context.Context, ws *Workspace) DoctorCheck {
	c := DoctorCheck{Name: "integrations"}
	m, err := mcp.Open(ctx, mcp.Options{Home: ws.Home, Store: mcp.NewStore(ws.State, nil), StartTimeout: doctorMCPTimeout})
	if err != nil {
		c.Detail, c.Fix = err.Error(), "fix "+mcp.ConfigFile+" in an editor, or remove the entry: agent mcp remove NAME"
		return c
	}
	defer m.Close()
	if m.Empty() {
		c.OK, c.Detail = true, "none configured"
		return c
	}
	m.Probe(ctx)
	var ok, bad []string
	for _, s := range m.Statuses() {
		if s.State == mcp.StateOK {
			ok = append(ok, fmt.Sprintf("%s: %s", s.Name, doctorPlural(s.Tools, "tool")))
			continue
		}
		why := s.LastError
		switch {
		case s.State == mcp.StateNotApproved:
			why = "not approved (agent mcp approve " + s.Name + ")"
		case why == "":
			why = s.State
		}
		bad = append(bad, s.Name+": "+oneLine(why, 160))
	}
	if len(bad) == 0 {
		c.OK, c.Detail = true, strings.Join(ok, "; ")
		return c
	}
	c.Detail = fmt.Sprintf("%d of %s unavailable (chats go on without their tools): %s",
		len(bad), doctorPlural(len(bad)+len(ok), "integration"), strings.Join(bad, "; "))
	c.Fix = "agent mcp list shows each server's state and its log (--verbose: the whole error); agent mcp approve NAME lets one run; agent mcp remove NAME drops one"
	return c
}
