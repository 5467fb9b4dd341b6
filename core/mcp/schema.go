package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// MaxToolName is the longest tool name Ollama's function calling (and the
// OpenAI-style APIs it mirrors) reliably takes.
const MaxToolName = 64

// Param is one top-level argument of a tool, in the flat form the model is
// shown: a JSON-schema type, a description, whether it is required, the
// allowed values, and for an array the schema of its items as given.
type Param struct {
	Name        string
	Type        string
	Description string
	Required    bool
	Enum        []string
	Items       any
}

// Tool is one tool of a server as the agent offers it.
type Tool struct {
	Server      string   `json:"server"`
	Name        string   `json:"name"`      // the server's own name for it
	FullName    string   `json:"full_name"` // NAME__tool, what the model calls
	Description string   `json:"description"`
	Params      []Param  `json:"-"`
	Dropped     []string `json:"dropped"` // schema parts the model is not shown
	Policy      string   `json:"policy"`  // allow, deny or ask
}

// kept are the schema keys that reach the model.
var keptTop = map[string]bool{"type": true, "properties": true, "required": true, "$schema": true, "additionalProperties": true}
var keptProp = map[string]bool{"type": true, "description": true, "enum": true, "items": true, "title": true}

// convertSchema flattens a tool's input schema into Params and lists what
// is dropped on the way, as "key" (top level) or "param.key".
func convertSchema(schema any) (params []Param, dropped []string) {
	m, _ := schema.(map[string]any)
	if m == nil {
		if schema != nil {
			dropped = append(dropped, "schema (not an object)")
		}
		return nil, dropped
	}
	for k := range m {
		if !keptTop[k] {
			dropped = append(dropped, k)
		}
	}
	required := map[string]bool{}
	if rs, ok := m["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		pm, _ := props[n].(map[string]any)
		p := Param{Name: n, Required: required[n], Type: "string"}
		if pm == nil {
			dropped = append(dropped, n+" (not an object)")
			params = append(params, p)
			continue
		}
		for k := range pm {
			if !keptProp[k] {
				dropped = append(dropped, n+"."+k)
			}
		}
		switch t := pm["type"].(type) {
		case string:
			p.Type = t
		case []any:
			// ["string", "null"]: the first real type; the rest is dropped.
			for _, x := range t {
				if s, ok := x.(string); ok && s != "null" {
					p.Type = s
					break
				}
			}
			dropped = append(dropped, n+".type (union)")
		}
		p.Description, _ = pm["description"].(string)
		if p.Description == "" {
			p.Description, _ = pm["title"].(string)
		}
		if es, ok := pm["enum"].([]any); ok {
			for _, e := range es {
				p.Enum = append(p.Enum, fmt.Sprint(e))
			}
		}
		if p.Type == "array" {
			p.Items = pm["items"]
		}
		if p.Type == "object" {
			if _, ok := pm["properties"]; ok {
				// The object is passed as given; its fields are not described.
				p.Description = strings.TrimSpace(p.Description + " (a JSON object)")
			}
		}
		params = append(params, p)
	}
	sort.Strings(dropped)
	return params, dropped
}

// fullName is what the model calls a server's tool: NAME__tool, with
// characters outside [A-Za-z0-9_-] replaced, at most MaxToolName long (a
// cut name ends in a short hash of the whole, so two stay apart).
func fullName(server, tool string) string {
	var b strings.Builder
	b.WriteString(server)
	b.WriteString("__")
	for _, r := range tool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) <= MaxToolName && s == server+"__"+tool {
		return s
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	h := hex.EncodeToString(sum[:])[:6]
	if len(s) > MaxToolName-7 {
		s = s[:MaxToolName-7]
	}
	return s + "_" + h
}

// toolsFromJSON decodes a cached tool list.
func toolsFromJSON(data string) ([]cachedTool, error) {
	var ts []cachedTool
	if err := json.Unmarshal([]byte(data), &ts); err != nil {
		return nil, err
	}
	return ts, nil
}

// cachedTool is a tool as the server listed it, as stored in state.db.
type cachedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
}
