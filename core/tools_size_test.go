package core

import (
	"context"
	"strings"
	"testing"

	"agent/prompts"
)

// maxBuiltinToolsChars bounds the built-in tool list as a model reads it.
// A llama3.x template prints the list inside the last user message, so it
// is evaluated again on every turn: 4,342 characters (11 tools, each
// described in JSON) kept a llama3.2 turn above half a cold one.
const maxBuiltinToolsChars = 2500

// The tool list is compact, and nothing a model needs to call a tool is
// lost: what each does and what each parameter takes is in the fixed
// prompt of the mode it is offered in (cached at the top of every
// request), with each tool's signature exactly as its schema has it.
func TestBuiltinToolListIsCompactAndDocumented(t *testing.T) {
	for _, mode := range []struct {
		bootstrap bool
		prompt    prompts.Prompt
	}{{false, prompts.System()}, {true, prompts.Bootstrap()}} {
		specs := toolSpecs(toolsFor(mode.bootstrap))
		if n := ToolsChars(specs); n > maxBuiltinToolsChars {
			t.Errorf("%s: the built-in tools are %d characters of JSON, over %d", mode.prompt.Name, n, maxBuiltinToolsChars)
		} else {
			t.Logf("%s: %d tools, %d characters of JSON", mode.prompt.Name, len(specs), n)
		}
		for _, s := range specs {
			var params []string
			for _, p := range s.Parameters {
				params = append(params, p.Name)
			}
			sig := "`" + s.Name + "(" + strings.Join(params, ", ") + ")`"
			if !strings.Contains(mode.prompt.Text, sig) {
				t.Errorf("%s prompt does not document %s", mode.prompt.Name, sig)
			}
		}
	}
}

// agent prompt --json reports the tool list's size, and a model without
// tool calling is sent none.
func TestAssembledReportsToolsSize(t *testing.T) {
	f := newChatFixture(t, true)
	asm, err := f.chat.Assemble(context.Background(), &Session{}, "hello")
	if err != nil {
		t.Fatal(err)
	}
	want := toolSpecs(toolsFor(false))
	if asm.Tools.Builtin != len(want) || asm.Tools.BuiltinChars != ToolsChars(want) || asm.Tools.BuiltinChars == 0 || asm.Tools.MCP != 0 {
		t.Errorf("tools %+v, want %d built-in of %d characters", asm.Tools, len(want), ToolsChars(want))
	}
	f.chat.NoTools = true
	if asm, err = f.chat.Assemble(context.Background(), &Session{}, "hello"); err != nil {
		t.Fatal(err)
	}
	if asm.Tools != (ToolsSize{}) {
		t.Errorf("no tool calling, yet tools %+v", asm.Tools)
	}
}

// A day given as memory_read's path reads that day's log, as date did.
func TestMemoryReadTakesADayAsPath(t *testing.T) {
	f := newChatFixture(t, true)
	f.write("logs/2026-11-20.md", "# 2026-11-20\n\n## Trip\n\nBooked the hotel.\n")
	for _, args := range []map[string]any{{"path": "2026-11-20"}, {"date": "2026-11-20"}, {"path": "logs/2026-11-20.md"}} {
		r := f.call(ToolMemoryRead, args)
		if !r.OK || !strings.Contains(r.Result, "Booked the hotel.") {
			t.Errorf("memory_read(%v) = %v %q", args, r.OK, r.Result)
		}
	}
	if r := f.call(ToolMemoryRead, map[string]any{"path": "someday"}); r.OK {
		t.Errorf("memory_read(someday) = %q, want an error", r.Result)
	}
}
