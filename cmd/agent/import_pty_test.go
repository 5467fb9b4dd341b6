package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal, an import of many conversations ends in its summary, not
// one line per file written (2,000 lines for a real export); piped, a
// script still gets the list.
func TestImportOnATerminalIsOneSummary(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	var convs []string
	for i := 0; i < 40; i++ {
		convs = append(convs, fmt.Sprintf(`{"title": "Trip %d", "create_time": %d.5, "id": "conv-%d", "current_node": "a",
  "mapping": {"r": {"id": "r", "message": null, "parent": null, "children": ["u"]},
    "u": {"id": "u", "parent": "r", "children": ["a"], "message": {"id": "u%d", "author": {"role": "user"}, "create_time": %d.0, "content": {"content_type": "text", "parts": ["Where to on trip %d?"]}, "metadata": {}, "recipient": "all"}},
    "a": {"id": "a", "parent": "u", "children": [], "message": {"id": "a%d", "author": {"role": "assistant"}, "create_time": %d.0, "content": {"content_type": "text", "parts": ["Somewhere warm."]}, "metadata": {}, "recipient": "all"}}}}`,
			i, 1714573920+i*3600, i, i, 1714573921+i*3600, i, i, 1714573930+i*3600))
	}
	export := filepath.Join(h.dir, "conversations.json")
	if err := os.WriteFile(export, []byte("["+strings.Join(convs, ",\n")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := h.runPTY("import", "chatgpt", export)
	if strings.Contains(out, "imports/chatgpt/") {
		t.Errorf("the terminal got one line per file:\n%s", out)
	}
	if !strings.Contains(out, "imported 40 conversations (80 messages) as import 1") {
		t.Errorf("no summary:\n%s", out)
	}
	if lines := strings.Count(strings.TrimSpace(out), "\n") + 1; lines > 3 {
		t.Errorf("%d lines on the terminal for one import, want the summary:\n%s", lines, out)
	}
	if r := h.run("", "import", "undo", "1"); r.code != 0 {
		t.Fatal(r)
	}
	if r := h.run("", "import", "chatgpt", export); strings.Count(r.stdout, "imports/chatgpt/") != 40 {
		t.Errorf("piped, the list of files is gone:\n%s", r)
	}
}
