package main

import (
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// TestREPLKeepsTypeAhead (issue 48): what is typed while a reply streams
// is not echoed into the reply; it waits for the next prompt, as a shell
// keeps type-ahead — a line with its Enter is the next message, words
// without one are there at the prompt to finish.
func TestREPLKeepsTypeAhead(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := h.fakeOllama()
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	hold1, hold2 := make(chan struct{}), make(chan struct{})
	r1, r2 := ollamatest.Text("Reply one."), ollamatest.Text("Reply two.")
	r1.Hold, r2.Hold = hold1, hold2
	srv.Script(r1, r2, ollamatest.Text("Reply three."))
	p := h.startPTY(nil, "chat", "--session", "ahead")
	p.expect(prompt)

	// A whole line typed during the reply is the next message.
	p.send("first question" + keyEnter)
	p.expect(`waiting for`)
	p.send("second question" + keyEnter)
	close(hold1)
	reply := p.expect(`Reply one\.`)
	if strings.Contains(reply, "second question") {
		t.Errorf("the type-ahead was echoed into the reply:\n%q", reply)
	}
	p.expect(`second question`)
	p.expect(`waiting for`)

	// Words without Enter are at the next prompt, to be finished.
	p.send("third")
	close(hold2)
	reply = p.expect(`Reply two\.`)
	if strings.Contains(reply, "third") {
		t.Errorf("the type-ahead was echoed into the reply:\n%q", reply)
	}
	p.expect(prompt + `third`)
	p.send(" words" + keyEnter)
	p.expect(`Reply three\.`)
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Messages[len(r.Messages)-1].Content)
	}
	if len(got) != 3 || !strings.HasSuffix(got[1], "second question") || !strings.HasSuffix(got[2], "third words") {
		t.Errorf("the model received %q", got)
	}
}
