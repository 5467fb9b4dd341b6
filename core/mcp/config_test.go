package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestConfigKeepsUnknownKeysAndExpandsOnlyWhenResolved(t *testing.T) {
	in := `{"globalShortcut": "Ctrl+Space", "mcpServers": {
		"gh": {"command": "gh-mcp", "args": ["--token", "${GH_TOKEN}"], "env": {"X": "${HOME_DIR}/x"}, "disabled": false, "alwaysAllow": ["a"]},
		"web": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${WEB}"}}}}`
	cfg, err := ParseConfig([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	gh := back["mcpServers"].(map[string]any)["gh"].(map[string]any)
	if back["globalShortcut"] != "Ctrl+Space" || gh["disabled"] != false || gh["alwaysAllow"] == nil {
		t.Fatalf("unknown keys lost:\n%s", out)
	}
	if !strings.Contains(string(out), `"${GH_TOKEN}"`) {
		t.Fatalf("a variable was expanded in the file:\n%s", out)
	}
	env := map[string]string{"GH_TOKEN": "s3cret", "HOME_DIR": "/h"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	r, err := cfg.Servers["gh"].Resolved(getenv)
	if err != nil || !slices.Equal(r.Args, []string{"--token", "s3cret"}) || r.Env["X"] != "/h/x" {
		t.Fatalf("resolved: %+v %v", r, err)
	}
	if _, err := cfg.Servers["web"].Resolved(getenv); err == nil || !strings.Contains(err.Error(), "${WEB} is not set") {
		t.Fatalf("an unset variable: %v", err)
	}
	if cfg.Servers["web"].Kind() != TypeHTTP || cfg.Servers["gh"].Kind() != TypeStdio {
		t.Fatal("kinds")
	}
}

func TestNames(t *testing.T) {
	for _, bad := range []string{"", "a b", "-x", "a__b", strings.Repeat("a", 41), "ä"} {
		if ValidName(bad) == nil {
			t.Errorf("ValidName(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{"My Files": "My-Files", "a__b": "a_b", "ä": "server", "x.y/z": "x-y-z"} {
		if got := SanitizeName(in); got != want || ValidName(got) != nil {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("t", 80)
	a, b := fullName("srv", long), fullName("srv", long+"x")
	if len(a) > MaxToolName || len(b) > MaxToolName || a == b || !strings.HasPrefix(a, "srv__ttt") {
		t.Fatalf("long names: %q %q", a, b)
	}
	if got := fullName("srv", "read_file"); got != "srv__read_file" {
		t.Fatalf("plain name changed: %q", got)
	}
	if x, y := fullName("srv", "a.b"), fullName("srv", "a/b"); x == y || !strings.HasPrefix(x, "srv__a_b_") {
		t.Fatalf("sanitised names collide or lose their shape: %q %q", x, y)
	}
}

func TestConvertSchema(t *testing.T) {
	var schema any
	json.Unmarshal([]byte(`{"type": "object", "$defs": {}, "required": ["path"], "properties": {
		"path": {"type": "string", "description": "where"},
		"mode": {"type": ["string", "null"], "enum": ["r", "w"], "default": "r"},
		"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
		"n": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}}`), &schema)
	params, dropped := convertSchema(schema)
	if len(params) != 4 || params[0].Name != "mode" || params[0].Type != "string" || !slices.Equal(params[0].Enum, []string{"r", "w"}) {
		t.Fatalf("params: %+v", params)
	}
	if params[1].Name != "n" || params[1].Type != "string" || params[2].Name != "path" || !params[2].Required || params[3].Items == nil {
		t.Fatalf("params: %+v", params)
	}
	want := []string{"$defs", "mode.default", "mode.type (union)", "n.anyOf", "tags.minItems"}
	if !slices.Equal(dropped, want) {
		t.Fatalf("dropped %q, want %q", dropped, want)
	}
}

// A schema that is not an object is dropped whole, and said: the tool is
// shown without parameters and `agent mcp list` names what was left out.
func TestConvertSchemaNotAnObjectIsSaid(t *testing.T) {
	params, dropped := convertSchema("a string")
	if params != nil || !slices.Equal(dropped, []string{"schema (not an object)"}) {
		t.Fatalf("params %+v, dropped %q", params, dropped)
	}
	if params, dropped := convertSchema(nil); params != nil || dropped != nil {
		t.Fatalf("no schema: params %+v, dropped %q", params, dropped)
	}
}
