package core

import (
	"agent/core/memrev"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"agent/memory"
	"agent/memory/secrets"
	"agent/profile"
	"agent/soul"
)

// Tool names the model may call.
const (
	ToolMemorySearch     = "memory_search"
	ToolMemoryAppend     = "memory_append"
	ToolLogNote          = "log_note"
	ToolSoulUpdate       = "soul_update"
	ToolProfilePropose   = "profile_propose"
	ToolProfileBootstrap = "profile_bootstrap"
)

// maxToolRounds bounds how many times one turn may go back to the model with
// tool results, so a confused model cannot loop forever.
const maxToolRounds = 4

// tool is one built-in tool: what the model is shown, in which modes it is
// offered, and what it does. A capability adds its tools as values like
// these in its own file and names them once in builtinTools.
type tool struct {
	spec ToolSpec
	// inBootstrap and inNormal say in which mode the tool is offered.
	inBootstrap, inNormal bool
	run                   func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error)
}

// builtinTools lists every built-in tool in the order the model is shown
// them. Bootstrap offers profile_bootstrap and withholds the persona and
// profile writers it does not need yet.
func builtinTools() []tool {
	return []tool{
		toolProfileBootstrap,
		toolMemorySearch,
		toolMemoryRead,
		toolMemoryAppend,
		toolLogNote,
		toolSoulUpdate,
		toolProfilePropose,
		toolReminderAdd, toolReminderList,
		toolSkillRead, toolSkillSave,
	}
}

// toolsFor returns the tools offered in a mode.
func toolsFor(bootstrap bool) []tool {
	var out []tool
	for _, tl := range builtinTools() {
		if bootstrap && tl.inBootstrap || !bootstrap && tl.inNormal {
			out = append(out, tl)
		}
	}
	return out
}

func toolSpecs(tools []tool) []ToolSpec {
	specs := make([]ToolSpec, len(tools))
	for i, tl := range tools {
		specs[i] = tl.spec
	}
	return specs
}

func toolNames(specs []ToolSpec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// ToolResult is what one tool call did, for the transcript and --json.
type ToolResult struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	OK        bool           `json:"ok"`
	Result    string         `json:"result"`
}

// errToolArgs marks a call whose arguments are missing or of the wrong type.
var errToolArgs = errors.New("invalid arguments")

// runTool executes one call. It never panics and never returns a Go error to
// the loop: a failure becomes an error result the model can read and recover
// from. Only the tools offered this turn can run.
func (c *Chat) runTool(ctx context.Context, t *turn, call ToolCall) (res ToolResult) {
	res = ToolResult{Name: call.Name, Arguments: call.Arguments}
	defer func() {
		if p := recover(); p != nil {
			res.OK, res.Result = false, fmt.Sprintf("error: tool %s failed internally: %v", call.Name, p)
		}
	}()
	var run func(context.Context, *Chat, *turn, toolArgs) (string, error)
	for _, tl := range t.tools {
		if tl.spec.Name == call.Name {
			run = tl.run
		}
	}
	if run == nil {
		res.Result = fmt.Sprintf("error: no tool named %q is available now; available: %s", call.Name, strings.Join(toolNames(toolSpecs(t.tools)), ", "))
		return res
	}
	out, err := run(ctx, c, t, toolArgs(call.Arguments))
	if err != nil {
		res.Result = "error: " + err.Error()
		return res
	}
	res.OK, res.Result = true, out
	return res
}

var toolMemorySearch = tool{
	spec: ToolSpec{Name: ToolMemorySearch,
		Parameters: []ToolParam{
			{Name: "query", Type: "string", Required: true},
			{Name: "k", Type: "integer"},
		}},
	inBootstrap: true, inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		q, err := args.str("query", true)
		if err != nil {
			return "", err
		}
		k, err := args.int("k", 5, 1, 10)
		if err != nil {
			return "", err
		}
		hits, err := c.recall(ctx, q, k)
		if err != nil {
			return "", err
		}
		if len(hits) == 0 {
			return "no passages found", nil
		}
		var b strings.Builder
		for _, h := range hits {
			b.WriteString(recallBlock(h))
		}
		return b.String(), nil
	},
}

var toolMemoryAppend = tool{
	spec: ToolSpec{Name: ToolMemoryAppend,
		Parameters: []ToolParam{
			{Name: "text", Type: "string", Required: true},
			{Name: "section", Type: "string"},
		}},
	inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		text, err := args.str("text", true)
		if err != nil {
			return "", err
		}
		section, err := args.str("section", false)
		if err != nil {
			return "", err
		}
		r, err := memrev.AppendFact(ctx, c.WS.State, c.WS.Home, memrev.Agent, "memory_append tool", text, section, c.Now)
		if err != nil {
			return "", err
		}
		c.notify(fmt.Sprintf("remembered in %s:%d", r.Path, r.StartLine))
		return fmt.Sprintf("saved to %s:%d-%d", r.Path, r.StartLine, r.EndLine) + c.secretsNote(ToolMemoryAppend, r.Secrets), nil
	},
}

var toolLogNote = tool{
	spec: ToolSpec{Name: ToolLogNote,
		Parameters: []ToolParam{{Name: "text", Type: "string", Required: true}}},
	inBootstrap: true, inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		text, err := args.str("text", true)
		if err != nil {
			return "", err
		}
		r, err := memory.AppendLog(c.WS.Home, t.now, text)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("noted in %s:%d-%d", r.Path, r.StartLine, r.EndLine) + c.secretsNote(ToolLogNote, r.Secrets), nil
	},
}

var toolSoulUpdate = tool{
	spec: ToolSpec{Name: ToolSoulUpdate,
		Parameters: []ToolParam{
			{Name: "content", Type: "string", Required: true},
			{Name: "reason", Type: "string", Required: true},
		}},
	inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		content, err := args.str("content", true)
		if err != nil {
			return "", err
		}
		reason, err := args.str("reason", true)
		if err != nil {
			return "", err
		}
		redacted := secrets.RedactEach(&content, &reason)
		rev, err := c.Soul.Save(ctx, content, soul.Agent, reason)
		if err != nil {
			return "", err
		}
		c.notify(fmt.Sprintf("SOUL.md updated by the model (revision %d: %s); see: agent soul diff", rev.ID, oneLine(reason, 80)))
		return fmt.Sprintf("SOUL.md saved as revision %d; it applies from the next turn", rev.ID) + c.secretsNote(ToolSoulUpdate, redacted), nil
	},
}

var toolProfilePropose = tool{
	spec: ToolSpec{Name: ToolProfilePropose,
		Parameters: []ToolParam{
			{Name: "key", Type: "string", Required: true},
			{Name: "value", Type: "string", Required: true},
			{Name: "reason", Type: "string", Required: true},
		}},
	inNormal: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		key, err := args.str("key", true)
		if err != nil {
			return "", err
		}
		value, err := args.str("value", true)
		if err != nil {
			return "", err
		}
		reason, err := args.str("reason", false)
		if err != nil {
			return "", err
		}
		redacted := secrets.RedactEach(&value, &reason) // a proposal lives in state.db and is printed
		p, err := c.Profile.Propose(ctx, key, value, reason, "chat session "+t.session.Name)
		if err != nil {
			return "", err
		}
		c.notify(fmt.Sprintf("proposal %d: %s = %q (accept with: agent profile accept %d)", p.ID, p.Key, p.Value, p.ID))
		return fmt.Sprintf("proposal %d recorded; it is NOT applied. Tell the user they can accept it with: agent profile accept %d", p.ID, p.ID) + c.secretsNote(ToolProfilePropose, redacted), nil
	},
}

var toolProfileBootstrap = tool{
	spec: ToolSpec{Name: ToolProfileBootstrap,
		Parameters: []ToolParam{
			{Name: "agent_name", Type: "string", Required: true},
			{Name: "user_name", Type: "string", Required: true},
		}},
	inBootstrap: true,
	run: func(ctx context.Context, c *Chat, t *turn, args toolArgs) (string, error) {
		agentName, err := args.str("agent_name", true)
		if err != nil {
			return "", err
		}
		userName, err := args.str("user_name", true)
		if err != nil {
			return "", err
		}
		for _, kv := range [][2]string{{"agent.name", agentName}, {"user.name", userName}} {
			if _, err := profile.Validate(kv[0], kv[1]); err != nil {
				return "", err
			}
		}
		if c.Confirm == nil {
			return "", fmt.Errorf("refused: the user is not at a terminal to confirm; they can set the names with: agent profile set agent.name %q and agent profile set user.name %q", agentName, userName)
		}
		if !c.Confirm(fmt.Sprintf("Save your name as %q and mine as %q?", userName, agentName)) {
			return "the user declined; ask again what the names should be", nil
		}
		d := profile.ByUser("chat bootstrap (confirmed)")
		for _, kv := range [][2]string{{"agent.name", agentName}, {"user.name", userName}} {
			if _, ok, err := c.Profile.Get(ctx, kv[0]); err != nil {
				return "", err
			} else if ok {
				continue // set meanwhile by the user: theirs wins
			}
			if _, err := c.Profile.Set(ctx, d, kv[0], kv[1]); err != nil {
				return "", err
			}
		}
		return "saved; the profile is set and cannot be changed by you from now on", nil
	},
}

// toolArgs reads a model's arguments leniently in form (numbers may arrive as
// strings) and strictly in substance (required means present and non-empty).
type toolArgs map[string]any

func (a toolArgs) str(name string, required bool) (string, error) {
	v, ok := a[name]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("%w: %q is required", errToolArgs, name)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		return "", fmt.Errorf("%w: %q must be a string, got %s", errToolArgs, name, b)
	}
	if required && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%w: %q must not be empty", errToolArgs, name)
	}
	return s, nil
}

func (a toolArgs) int(name string, def, lo, hi int) (int, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case int:
		n = float64(x)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %q must be a number, got %q", errToolArgs, name, x)
		}
		n = f
	default:
		return 0, fmt.Errorf("%w: %q must be a number", errToolArgs, name)
	}
	if math.IsNaN(n) {
		return def, nil
	}
	return int(math.Max(float64(lo), math.Min(float64(hi), n))), nil
}
