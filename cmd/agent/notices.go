package main

import (
	"io"
	"strings"
	"sync"

	"agent/memory/printable"
)

// noticeGate holds the notes (agent: …) that arrive while a reply streams
// — an integration that dies, a skill the model saved — and prints them
// when the reply is done, so a note never lands in the middle of the
// reply's words on a terminal. Notes come from other goroutines too (an
// integration's watcher).
type noticeGate struct {
	mu      sync.Mutex
	holding bool
	held    []string
	print   func(string)
}

func newNoticeGate(print func(string)) *noticeGate { return &noticeGate{print: print} }

// note prints msg now, or after the reply when one is streaming.
func (g *noticeGate) note(msg string) {
	g.mu.Lock()
	if g.holding {
		g.held = append(g.held, msg)
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	g.print(msg)
}

func (g *noticeGate) hold() {
	g.mu.Lock()
	g.holding = true
	g.mu.Unlock()
}

// release prints what was held, in order, and stops holding.
func (g *noticeGate) release() {
	g.mu.Lock()
	held := g.held
	g.held, g.holding = nil, false
	g.mu.Unlock()
	for _, m := range held {
		g.print(m)
	}
}

// replyStream writes a streamed reply to w, holding notes from its first
// token until end, which closes the reply's last line and prints them.
type replyStream struct {
	w       io.Writer
	gate    *noticeGate
	wait    *waitLine // erased at the first token (nil: none shown)
	started bool
	last    string
}

func (r *replyStream) token(tok string) {
	if !r.started && tok != "" {
		r.wait.stop() // before the reply's first word reaches the terminal
		r.started = true
		r.gate.hold()
	}
	if tok != "" {
		r.last = tok
	}
	io.WriteString(r.w, printable.Escape(tok)) // the model's words cannot drive the terminal
}

// end finishes the reply's line (when something was written) and lets the
// held notes out.
func (r *replyStream) end() {
	r.wait.stop()
	if r.started && !strings.HasSuffix(r.last, "\n") {
		io.WriteString(r.w, "\n")
	}
	r.gate.release()
}
