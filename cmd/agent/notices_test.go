package main

import (
	"strings"
	"sync"
	"testing"
)

// A note that arrives while a reply streams comes after the reply's last
// line, in order; before the first token and after the end it is printed
// at once.
func TestNotesWaitForTheReply(t *testing.T) {
	var mu sync.Mutex
	var out strings.Builder
	write := func(s string) { mu.Lock(); out.WriteString(s); mu.Unlock() }
	gate := newNoticeGate(func(msg string) { write("agent: " + msg + "\n") })
	w := writerFunc(write)
	r := &replyStream{w: w, gate: gate}
	gate.note("before")
	r.token("Hel")
	gate.note("during 1")
	r.token("lo")
	done := make(chan struct{})
	go func() { gate.note("during 2"); close(done) }() // an integration's watcher
	<-done
	r.end()
	gate.note("after")
	want := "agent: before\nHello\nagent: during 1\nagent: during 2\nagent: after\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
	// No token at all (an error before the reply): nothing is held, no
	// newline is added.
	out.Reset()
	r = &replyStream{w: w, gate: gate}
	gate.note("x")
	r.end()
	if out.String() != "agent: x\n" {
		t.Fatalf("got %q", out.String())
	}
}

type writerFunc func(string)

func (f writerFunc) Write(p []byte) (int, error) { f(string(p)); return len(p), nil }
