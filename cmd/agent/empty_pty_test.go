package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// An empty listing says so on a terminal, with how to add to it; piped, it
// prints nothing at all (the exit code says it to a script).
func TestEmptyListingsSaySoOnATerminal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"memory", "search", "zzzqqq"}, 3, `nothing in memory matches "zzzqqq" (remember something with: agent memory add TEXT`},
		{[]string{"sessions", "list"}, 0, "no sessions yet (start one with: agent chat)"},
		{[]string{"sessions"}, 0, "no sessions yet"},
		{[]string{"import", "list"}, 0, "no imports yet (bring a history in with: agent import chatgpt FILE"},
	} {
		name := strings.Join(c.args, " ")
		p := h.startPTY(nil, c.args...)
		err := p.wait()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if code != c.code {
			t.Errorf("%s: exit %d, want %d", name, code, c.code)
		}
		if out := p.all(); !strings.Contains(out, "agent: "+c.want) {
			t.Errorf("%s on a terminal shows %q, want it to say %q", name, out, c.want)
		}
		// Piped: nothing on stdout or stderr.
		r := h.run("", c.args...)
		if r.code != c.code || r.stdout != "" || r.stderr != "" {
			t.Errorf("%s piped: exit %d, stdout %q, stderr %q; want exit %d and nothing", name, r.code, r.stdout, r.stderr, c.code)
		}
	}
}
