package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cancelOnWrite is a terminal's stderr that presses Ctrl-C (cancels the
// command's context) when the progress line first shows: the import is
// then interrupted halfway, between two conversations, every time.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	when   string
	cancel func()
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.when) {
		c.cancel()
	}
	return len(p), nil
}

// Ctrl-C during an import says what was kept ("nothing was imported; run it
// again to resume"), exits 130, and leaves nothing behind; then the same
// import runs whole. Before, it said "import: context canceled", exit 1.
func TestCtrlCDuringImport(t *testing.T) {
	home := ttyWorkspace(t)
	export, err := filepath.Abs("../../core/importer/testdata/chatgpt-conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOnWrite{when: "agent: importing 1/", cancel: cancel}
	var out bytes.Buffer
	t.Setenv("TERM", "xterm")
	code := run(ctx, []string{"agent", "--home", home, "import", "chatgpt", export},
		&iostreams{In: strings.NewReader(""), Out: &out, Err: errw, ErrTTY: true})
	stderr := errw.buf.String()
	if code != exitInterrupted || !strings.Contains(stderr, "agent: interrupted: nothing was imported; run it again to resume\n") ||
		strings.Contains(stderr, "context canceled") {
		t.Fatalf("exit %d, stderr %q; want exit 130 and what was kept", code, stderr)
	}
	if entries, err := os.ReadDir(filepath.Join(home, "imports")); err == nil && len(entries) > 0 {
		t.Errorf("an interrupted import left %d entries under imports/", len(entries))
	}
	code, stdout, stderr := runPiped(t, "--home", home, "import", "list")
	if code != 0 || strings.TrimSpace(stdout) != "" {
		t.Errorf("import list after the interrupt: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runPiped(t, "--home", home, "import", "chatgpt", export); code != 0 || !strings.Contains(stderr, "imported 2 conversations") {
		t.Errorf("run again: exit %d, stderr %q", code, stderr)
	}
}
