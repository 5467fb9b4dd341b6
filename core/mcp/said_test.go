package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A server that cannot start is said in the user's terms, from the real
// failures (so a change of the wording they are read from fails here); the
// whole chain stays in Detail, for --verbose and bug reports.
func TestFailuresSaidInTheUsersTerms(t *testing.T) {
	f := newFixture(t, map[string]Server{
		"gone":    {Command: "/nonexistent/server"},
		"nopath":  {Command: "no-such-command-here"},
		"refused": {Type: TypeHTTP, URL: "http://127.0.0.1:1/mcp"},
		"broken":  stdioServer("MCPTEST_FAIL=the-token-is-wrong"),
	})
	m := f.open(t, Options{})
	m.Probe(context.Background())
	want := map[string]string{
		"gone":    "cannot start /nonexistent/server: no such file",
		"nopath":  "cannot start no-such-command-here: no such command in PATH",
		"refused": "the server at http://127.0.0.1:1/mcp refused the connection",
		"broken":  "it stopped before it answered; its stderr ends: mcptest: starting | mcptest: the-token-is-wrong",
	}
	for _, s := range m.Statuses() {
		if s.LastError != want[s.Name] {
			t.Errorf("%s: said %q, want %q", s.Name, s.LastError, want[s.Name])
		}
		for _, inner := range []string{"fork/exec", "rejected by transport", "calling", "exec:"} {
			if strings.Contains(s.LastError, inner) {
				t.Errorf("%s: the inner chain (%q) reached the user: %q", s.Name, inner, s.LastError)
			}
		}
		if s.Detail == "" || s.Detail == s.LastError {
			t.Errorf("%s: the whole chain is not kept in Detail: %q", s.Name, s.Detail)
		}
	}
	if n := f.notes.String(); strings.Contains(n, "fork/exec") || strings.Contains(n, "rejected by transport") {
		t.Errorf("a note to the user holds the inner chain: %q", n)
	}
}

func TestSaidKeepsWhatItDoesNotKnow(t *testing.T) {
	raw := "failed to start: something new went wrong"
	if got := said(errors.New("something new went wrong"), "x", raw); got != raw {
		t.Errorf("said = %q, want %q unchanged", got, raw)
	}
	// Words of a known failure in an unknown error's text are not read as it.
	lookalike := errors.New(`fork/exec /x: no such file or directory; Get "http://h": connection refused`)
	if got := said(lookalike, "x", lookalike.Error()); got != lookalike.Error() {
		t.Errorf("said from the text: %q", got)
	}
}

// A program that exists but cannot be run is said with the reason the
// system gave, in words, from the real os/exec failures.
func TestSaidWhyAProgramCannotStart(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, content string
		mode          os.FileMode
		want          string
	}{
		{"notexec", "#!/bin/sh\n", 0o644, "permission denied (is it executable?)"},
		{"garbage", "\x00\x01 not a program", 0o755, "not a program this system can run"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.content), c.mode); err != nil {
			t.Fatal(err)
		}
		err := exec.Command(path).Start()
		if err == nil {
			t.Fatalf("%s started", c.name)
		}
		raw := "failed to start: " + err.Error()
		if got, want := said(fmt.Errorf("failed to start: %w", err), path, raw), "cannot start "+path+": "+c.want; got != want {
			t.Errorf("said(%q) = %q, want %q", raw, got, want)
		}
	}
}
