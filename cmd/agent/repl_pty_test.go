package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"agent/core/ollamatest"
)

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyLeft  = "\x1b[D"
	keyUp    = "\x1b[A"
	keyCtrlA = "\x01"
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
	keyCtrlU = "\x15"
	keyBack  = "\x7f"
)

// prompt is the REPL's prompt as the terminal shows it (bold green).
const prompt = `\x1b\[1;32m› \x1b\[0m`

// The REPL as a person uses it, in a real pseudo-terminal running the built
// binary: line editing, history (in the session and across restarts),
// multi-line input, Ctrl-C during a reply and at the prompt, every slash
// command, a window resize, Ctrl-D. What the model received is read back
// from the fake Ollama, what was stored from the session's transcript.
// Every wait is for output; the deadline only bounds a failure.
func TestREPLInATerminal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	h.must("", "log", "The ferry to Tarifa leaves at nine")
	srv.Script(
		ollamatest.Text("Reply one."),
		ollamatest.Text("Reply two."),
		ollamatest.Text("Reply three."),
		ollamatest.Text("Reply four."),
		ollamatest.Stall("Partial words of a long"),
		ollamatest.Text("Reply six."),
		ollamatest.Text("Reply seven."),
		ollamatest.Text("Reply eight."),
		ollamatest.Text("Reply nine."),
	)
	lastUser := func() string {
		t.Helper()
		reqs := srv.Requests()
		if len(reqs) == 0 {
			t.Fatal("no request reached the model")
		}
		msgs := reqs[len(reqs)-1].Messages
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == "user" {
				return msgs[i].Content
			}
		}
		t.Fatal("no user message in the last request")
		return ""
	}
	sent := func(want string) {
		t.Helper()
		if got := lastUser(); !strings.HasSuffix(got, want) {
			t.Errorf("the model received %q, want it to end with %q", got, want)
		}
	}

	p := h.startPTY(nil, "chat", "--session", "pty")
	p.expect(`new session pty; /help for commands`)
	p.expect(prompt)

	// Typing and line editing: a line typed, cleared with Ctrl-U, typed
	// again with a typo fixed by moving left and inserting, a character
	// rubbed out, a word put in front after Ctrl-A.
	p.send("something else" + keyCtrlU)
	p.send("hello wrld!" + keyBack + keyLeft + keyLeft + keyLeft + "o" + keyCtrlA + "well, " + keyEnter)
	p.expect(`Reply one\.`)
	p.expect(prompt)
	sent("well, hello world")

	// History: the up arrow brings the last line back, to be edited.
	p.send(keyUp + " again" + keyEnter)
	p.expect(`Reply two\.`)
	p.expect(prompt)
	sent("well, hello world again")

	// Multi-line input: a trailing backslash, and a """ block.
	p.send(`first line\` + keyEnter)
	p.send("second line" + keyEnter)
	p.expect(`Reply three\.`)
	p.expect(prompt)
	sent("first line\nsecond line")
	p.send(`"""` + keyEnter + "block one" + keyEnter + "  block two" + keyEnter + `"""` + keyEnter)
	p.expect(`Reply four\.`)
	p.expect(prompt)
	sent("block one\n  block two")

	// Ctrl-C during a reply cuts it; what arrived is kept, marked, and
	// the REPL goes on.
	p.send("tell me a long story" + keyEnter)
	p.expect(`Partial words of a long`)
	p.send(keyCtrlC)
	p.expect(`(?i)interrupt`)
	p.expect(prompt)

	// Ctrl-C at the prompt drops the line being typed, nothing is sent.
	p.send("never sent" + keyCtrlC)
	p.expect(`\^C`)
	p.expect(prompt)
	p.send("after the interrupt" + keyEnter)
	p.expect(`Reply six\.`)
	p.expect(prompt)
	sent("after the interrupt")

	// Every slash command.
	for _, c := range []struct{ cmd, want string }{
		{"/help", `/remember TEXT add a fact to MEMORY\.md`},
		{"/search ferry", `ferry(\x1b\[0m)? to Tarifa leaves at nine`},
		{"/remember I take my tea green", `agent: remembered in MEMORY\.md:\d+`},
		{"/soul", `# Soul`},
		{"/profile", `name: Ada`},
		{"/prompt what about tea?", `── total ~\d+ of \d+ tokens`},
		{"/bogus", `agent: unknown command /bogus \(try /help\)`},
		{"/search", `agent: /search needs a query`},
	} {
		p.send(c.cmd + keyEnter)
		p.expect(c.want)
		p.expect(prompt)
	}

	// A resize (SIGWINCH) while the line editor runs; then a line longer
	// than the new width still arrives whole.
	if err := pty.Setsize(p.tty, &pty.Winsize{Rows: 20, Cols: 40}); err != nil {
		t.Fatal(err)
	}
	long := "a line that is longer than the forty columns the window now has"
	p.send(long + keyEnter)
	p.expect(`Reply seven\.`)
	p.expect(prompt)
	sent(long)

	// /new starts a new session, the next message goes there.
	p.send("/new" + keyEnter)
	p.expect(`agent: new session`)
	p.expect(prompt)
	p.send("first of the second session" + keyEnter)
	p.expect(`Reply eight\.`)
	p.expect(prompt)
	p.send("/exit" + keyEnter)
	if err := p.wait(); err != nil {
		t.Fatalf("/exit: %v", err)
	}

	// What was stored: the cut reply, marked, and the turns around it.
	var show struct {
		Messages []struct{ Role, Content, Status string }
	}
	if err := json.Unmarshal([]byte(h.must("", "sessions", "show", "pty", "--json")), &show); err != nil {
		t.Fatal(err)
	}
	var cut, users int
	for _, m := range show.Messages {
		if m.Role == "user" {
			users++
		}
		if m.Role == "assistant" && m.Status == "interrupted" {
			cut++
			if m.Content != "Partial words of a long" {
				t.Errorf("stored cut reply %q", m.Content)
			}
		}
		if strings.Contains(m.Content, "never sent") {
			t.Errorf("a line dropped with Ctrl-C was stored: %q", m.Content)
		}
	}
	if cut != 1 || users != 7 {
		t.Errorf("session pty: %d cut replies, %d user messages; want 1 and 7:\n%+v", cut, users, show.Messages)
	}

	// A new REPL recalls the last process's lines with the up arrow (the
	// last one was /exit), and Ctrl-D on an empty line leaves it, exit 0.
	p = h.startPTY(nil, "chat", "--session", "again")
	p.expect(prompt)
	p.send(keyUp + keyUp + keyEnter)
	p.expect(`Reply nine\.`)
	p.expect(prompt)
	sent("first of the second session")
	p.send(keyCtrlD)
	if err := p.wait(); err != nil {
		t.Fatalf("Ctrl-D: %v", err)
	}
}

// A paste of many lines is one message (bracketed paste): the model gets
// one request with the lines as pasted, and the terminal is told to stop
// marking pastes when the REPL ends.
func TestREPLPasteIsOneMessage(t *testing.T) {
	h := newHarness(t)
	srv := h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	srv.Script(ollamatest.Text("Got the paste."), ollamatest.Text("Second."))
	p := h.startPTY(nil, "chat", "--session", "paste")
	p.expect(`\x1b\[\?2004h`)
	p.expect(prompt)
	before := len(srv.Requests())
	p.send(pasteStart + "line one\r\n  line two\r\nline three\r\n" + pasteEnd + keyEnter)
	p.expect(`Got the paste\.`)
	p.expect(prompt)
	p.send("after" + keyEnter)
	p.expect(`Second\.`)
	p.expect(prompt)
	reqs := srv.Requests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("%d requests reached the model, want 2 (the paste, then one line)", len(reqs))
	}
	var user string
	for _, m := range reqs[0].Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	if !strings.HasSuffix(user, "line one\n  line two\nline three") {
		t.Errorf("the model received %q, want the three pasted lines", user)
	}
	p.send(keyCtrlD)
	p.expect(`\x1b\[\?2004l`)
	if err := p.wait(); err != nil {
		t.Fatalf("Ctrl-D: %v", err)
	}
	// The line history keeps the paste as one entry, as it was in the
	// editor: the up arrow brings it back whole.
	hist, err := os.ReadFile(filepath.Join(h.home, ".chat_history"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "line one" + pasteBreak + "  line two" + pasteBreak + "line three\nafter\n"; !strings.HasSuffix(string(hist), want) {
		t.Errorf("line history %q, want it to end with %q", hist, want)
	}
}

// TERM=dumb draws no escapes: the prompt is not coloured there, as with
// NO_COLOR.
func TestREPLPromptPlainOnADumbTerminal(t *testing.T) {
	h := newHarness(t)
	h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	p := h.startPTY([]string{"TERM=dumb"}, "chat", "--session", "dumb")
	p.expect(`new session dumb`)
	p.expect(`› `)
	if out := p.all(); strings.Contains(out, "\x1b[1;32m") {
		t.Errorf("a coloured prompt with TERM=dumb:\n%q", out)
	}
	p.send(keyCtrlD)
	if err := p.wait(); err != nil {
		t.Fatalf("Ctrl-D: %v", err)
	}
}

// /search prints what memory search prints, by the same code: the same
// snippets, control bytes escaped (never acted on), fitted to the width.
func TestREPLSearchEscapesAndFits(t *testing.T) {
	h := newHarness(t)
	h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	f, err := os.OpenFile(filepath.Join(h.home, "MEMORY.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 60) + "ENDMARK"
	fmt.Fprintf(f, "\n- The kingfisher\x1b]0;pwned\x07 came back\x1b[2J %s\n", long)
	f.Close()
	search := h.runPTY("memory", "search", "kingfisher")
	if !strings.Contains(search, "kingfisher") {
		t.Fatalf("memory search found nothing to compare with:\n%s", search)
	}
	p := h.startPTY(nil, "chat", "--session", "search")
	p.expect(prompt)
	p.send("/search kingfisher" + keyEnter)
	p.expect(`came back\\x1b\[2J word`)
	p.expect(prompt)
	out := p.all()
	if !strings.Contains(strings.ReplaceAll(out, "\r\n", "\n"), search) {
		t.Errorf("/search does not print what memory search prints:\n%s\nmemory search:\n%s", out, search)
	}
	if strings.Contains(out, "\x1b]0;pwned") || strings.Contains(out, "\x1b[2J") {
		t.Errorf("a control sequence from a note reached the terminal:\n%q", out)
	}
	if strings.Contains(out, "ENDMARK") {
		t.Errorf("a long line was not cut at the terminal's width:\n%q", out)
	}
	p.send(keyCtrlD)
	if err := p.wait(); err != nil {
		t.Fatalf("Ctrl-D: %v", err)
	}
}

// A stored reply holding an escape sequence is shown escaped by agent
// prompt on a terminal (and by /prompt, the same printer); piped, the
// prompt stays the bytes the model is sent.
func TestPromptEscapesStoredRepliesOnATerminal(t *testing.T) {
	h := newHarness(t)
	srv := h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	srv.Script(ollamatest.Text("Sure\x1b]0;pwned\x07 thing\x1b[2J done."))
	if r := h.run("", "chat", "--session", "esc", "hello"); r.code != 0 {
		t.Fatal(r)
	}
	out := h.runPTY("prompt", "--continue", "next")
	if strings.Contains(out, "\x1b]0;pwned") || strings.Contains(out, "\x1b[2J") {
		t.Errorf("a stored reply's control sequence reached the terminal:\n%q", out)
	}
	if !strings.Contains(out, `Sure\x1b]0;pwned\x07 thing\x1b[2J done.`) {
		t.Errorf("the stored reply is not shown escaped:\n%q", out)
	}
	if r := h.run("", "prompt", "--continue", "next"); !strings.Contains(r.stdout, "Sure\x1b]0;pwned\x07 thing") {
		t.Errorf("piped, the prompt is not the bytes sent: %s", r)
	}
}

// With Ollama stopped, the REPL stays up: the / commands need no model, so
// /search and /remember work offline; a message says why it cannot be sent
// and the prompt comes back.
func TestREPLStaysUpWithOllamaStopped(t *testing.T) {
	h := newHarness(t) // OLLAMA_HOST points at a closed port
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	h.must("", "log", "The ferry to Tarifa leaves at nine")
	p := h.startPTY(nil, "chat", "--session", "offline")
	p.expect(`cannot reach Ollama`)
	p.expect(`staying up: / commands work without the model`)
	p.expect(prompt)
	p.send("/search ferry" + keyEnter)
	p.expect(`to Tarifa leaves at nine`)
	p.expect(prompt)
	p.send("/remember The ferry pier is north of the port" + keyEnter)
	p.expect(`agent: remembered in MEMORY\.md:\d+`)
	p.expect(prompt)
	p.send("hello?" + keyEnter)
	p.expect(`cannot reach Ollama`)
	p.expect(prompt)
	p.send(keyCtrlD)
	if err := p.wait(); err != nil {
		t.Fatalf("the REPL did not end cleanly: %v\n%q", err, p.all())
	}
	if !strings.Contains(h.read("MEMORY.md"), "The ferry pier is north of the port") {
		t.Error("/remember did not write MEMORY.md offline")
	}
}
