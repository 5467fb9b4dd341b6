package main

import (
	"strings"
	"testing"
	"time"

	"agent/core/ollamatest"
)

// While the model has not sent its first token, a terminal shows what the
// turn waits for on stderr; the line is erased before the reply's first
// word. Piped, nothing of it appears. The fake Ollama holds its answer
// until the test has seen the line (no sleeps, no timing assertion).
func TestWaitLineUntilTheFirstToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	for _, mode := range []string{"one-shot", "repl"} {
		t.Run(mode, func(t *testing.T) {
			hold := make(chan struct{})
			srv.Script(ollamatest.Reply{Text: "Here at last.", Hold: hold})
			var p *ptyProc
			if mode == "one-shot" {
				p = h.startPTY(nil, "chat", "--session", "wait-"+mode, "are you there?")
			} else {
				p = h.startPTY(nil, "chat", "--session", "wait-"+mode)
				p.expect(prompt)
				p.send("are you there?" + keyEnter)
			}
			p.expect(`⠋ waiting for llama3\.2(:latest)?…`)
			close(hold)
			p.expect(`Here at last\.`)
			out := p.all()
			i := strings.LastIndex(out, "waiting for")
			j := strings.Index(out, "Here at last.")
			if erase := strings.Index(out[i:], "\r\x1b[K"); erase < 0 || i+erase > j {
				t.Errorf("the wait line was not erased before the reply:\n%q", out)
			}
			if mode == "repl" {
				p.expect(prompt)
				p.send(keyCtrlD)
			}
			if err := p.wait(); err != nil {
				t.Fatalf("%s: %v\n%q", mode, err, p.all())
			}
		})
	}

	// On a terminal with --quiet, or one that cannot redraw (TERM=dumb),
	// no wait line either, as no progress line.
	for _, c := range []struct {
		env  []string
		args []string
	}{{nil, []string{"--quiet"}}, {[]string{"TERM=dumb"}, nil}} {
		hold := make(chan struct{})
		time.AfterFunc(3*waitDelay, func() { close(hold) })
		srv.Script(ollamatest.Reply{Text: "Quiet reply.", Hold: hold})
		p := h.startPTY(c.env, append(c.args, "chat", "--session", "quiet", "hello")...)
		p.expect(`Quiet reply\.`)
		if err := p.wait(); err != nil {
			t.Fatalf("%v %v: %v\n%q", c.env, c.args, err, p.all())
		}
		if strings.Contains(p.all(), "waiting for") {
			t.Errorf("%v %v: a wait line was drawn:\n%q", c.env, c.args, p.all())
		}
	}

	// Piped: the reply, held past the delay a terminal would have shown
	// the line after, arrives with no wait line on either stream.
	hold := make(chan struct{})
	time.AfterFunc(3*waitDelay, func() { close(hold) })
	srv.Script(ollamatest.Reply{Text: "Piped reply.", Hold: hold})
	r := h.run("", "chat", "--session", "piped", "hello")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "waiting for") || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("piped chat showed a wait line: %s", r)
	}
}

// Past the threshold, the wait line says what it waits for: Ollama is asked
// once (/api/ps) whether the model is in memory. The first turn's model is
// not loaded, so the wait is its load; the next turn's is loaded, so the
// wait is the prompt's evaluation, with its size.
func TestWaitLineSaysWhatItWaitsFor(t *testing.T) {
	h := newHarness(t)
	srv := h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	first, second := make(chan struct{}), make(chan struct{})
	srv.Script(ollamatest.Reply{Text: "Loaded now.", Hold: first}, ollamatest.Reply{Text: "Evaluated.", Hold: second})
	p := h.startPTY(nil, "chat", "--session", "what")
	p.expect(prompt)
	p.send("are you there?" + keyEnter)
	p.expect(`loading llama3\.2(:latest)?…`)
	if n := srv.PSAsks(); n != 1 {
		t.Errorf("/api/ps asked %d times during one wait, want once", n)
	}
	close(first)
	p.expect(`Loaded now\.`)
	p.expect(prompt)
	p.send("and now?" + keyEnter)
	p.expect(`llama3\.2(:latest)? evaluating ~\d+ tokens…`)
	close(second)
	p.expect(`Evaluated\.`)
	p.expect(prompt)
	p.send(keyCtrlD)
	if err := p.wait(); err != nil {
		t.Fatal(err)
	}
	if n := srv.PSAsks(); n != 2 {
		t.Errorf("/api/ps asked %d times for two waits, want twice", n)
	}
}
