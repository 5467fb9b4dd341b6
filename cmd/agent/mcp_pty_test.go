package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"agent/core/ollamatest"
)

// TestMCPApprovalPagedInATerminal: a call taller than the terminal is
// shown a page at a time, never cut; the question comes after the last
// line; refusing a page refuses the call (issue 26.1).
func TestMCPApprovalPagedInATerminal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	server := filepath.Join(h.dir, "mcptestserver")
	if out, err := exec.Command("go", "build", "-o", server, "../../core/mcp/mcptest/cmd/mcptestserver").CombinedOutput(); err != nil {
		t.Fatalf("build the test server: %v\n%s", err, out)
	}
	srv := h.fakeOllama()
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Ada")
	h.must("", "-q", "mcp", "add", "t", "--", server)
	var lines []string
	for i := range 60 {
		lines = append(lines, "line "+string(rune('A'+i%26))+strings.Repeat(".", i))
	}
	lines[59] = "LAST LINE: the payload"
	text := strings.Join(lines, "\n")
	srv.Script(
		ollamatest.CallTool("t__echo", map[string]any{"text": text}),
		ollamatest.Text("Reply one."),
		ollamatest.CallTool("t__echo", map[string]any{"text": text}),
		ollamatest.Text("Reply two."),
	)

	p := h.startPTY(nil, "chat")
	p.expect(prompt)
	if err := pty.Setsize(p.tty, &pty.Winsize{Rows: 20, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	p.send("echo it" + keyEnter)
	p.expect(`Run echo \(integration t\) with:`)
	p.expect(`text: \(text, 60 lines\)`)
	p.expect(`-- lines 1-17 of 61: Enter for more, n to refuse -- `)
	p.send(keyEnter)
	p.expect(`-- lines 18-34 of 61: Enter for more, n to refuse -- `)
	p.send(keyEnter)
	p.expect(`-- lines 35-51 of 61: Enter for more, n to refuse -- `)
	p.send(keyEnter)
	p.expect(`│ LAST LINE: the payload`)
	p.expect(`Run it\? \[y/n/always\]`)
	p.send("y" + keyEnter)
	p.expect(`Reply one\.`)
	p.expect(prompt)

	// Refused on its first page: not run, and the model is told.
	p.send("again" + keyEnter)
	p.expect(`-- lines 1-17 of 61: Enter for more, n to refuse -- `)
	p.send("n" + keyEnter)
	p.expect(`Reply two\.`)
	p.expect(prompt)
	p.send("/exit" + keyEnter)
	if err := p.wait(); err != nil {
		t.Fatalf("/exit: %v", err)
	}
	// The tool result each turn's second request carried.
	var results []string
	for _, r := range srv.Requests() {
		if m := r.Messages[len(r.Messages)-1]; m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], "LAST LINE: the payload") || !strings.Contains(results[1], "the user declined") {
		t.Fatalf("tool results the model got: %q", results)
	}
}
