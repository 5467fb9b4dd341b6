package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// edited is text the user changed in their editor, in a temp copy. The
// copy is removed by done unless keep was called: whenever saving it
// fails, the copy stays and its path is told, so an edit is never lost.
type edited struct {
	text string
	path string
	dir  string
	kept bool
}

func (e *edited) keep() { e.kept = true }

func (e *edited) done() {
	if !e.kept {
		os.RemoveAll(e.dir)
	}
}

// editCopy writes content to a temp file called name (the real name, for
// the editor's syntax highlighting), opens it in the user's editor and
// returns what it holds afterwards. An editor that fails changes nothing.
func (a *app) editCopy(ctx context.Context, name, content string) (*edited, error) {
	editor, chosen := editorCommand()
	// vi with no terminal draws into a pipe and waits for keys that never
	// come; an editor the user chose may well be a window of its own.
	if !chosen && (!a.io.InTTY || !a.io.OutTTY) {
		return nil, usagef("no terminal to run vi in: run this in a terminal, or set EDITOR to an editor that needs none (e.g. EDITOR='code --wait')")
	}
	dir, err := os.MkdirTemp("", "agent-"+strings.ToLower(strings.TrimSuffix(name, filepath.Ext(name)))+"-")
	if err != nil {
		return nil, fmt.Errorf("edit: %w", err)
	}
	e := &edited{path: filepath.Join(dir, name), dir: dir}
	if err := os.WriteFile(e.path, []byte(content), 0o600); err != nil {
		e.done()
		return nil, fmt.Errorf("edit: %w", err)
	}
	// Through sh, like git does, so EDITOR="code --wait" works.
	ed := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "sh", e.path)
	ed.Stdin, ed.Stdout, ed.Stderr = a.io.In, a.io.Out, a.io.Err
	if err := ed.Run(); err != nil {
		e.done()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("editor %q exited with status %d", editor, exit.ExitCode())
		}
		return nil, fmt.Errorf("run editor %q: %w", editor, err)
	}
	b, err := os.ReadFile(e.path)
	if err != nil {
		e.done()
		return nil, fmt.Errorf("edit: read back %s: %w", e.path, err)
	}
	e.text = string(b)
	return e, nil
}

// editorCommand is $VISUAL, else $EDITOR, else vi; chosen says the user
// named one.
func editorCommand() (editor string, chosen bool) {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(os.Getenv(v)); e != "" {
			return e, true
		}
	}
	return "vi", false
}
