package main

import (
	"bytes"
	"strings"
	"testing"
)

// Anything else written to a terminal's stderr ends the wait line for good,
// so a note or the line editor's prompt is never drawn over by a frame; a
// stderr that is not a terminal (not wrapped) gets no wait line at all.
func TestWaitLineEndsAtAnyOtherWrite(t *testing.T) {
	var buf bytes.Buffer
	te := &termErr{w: &buf}
	a := &app{io: &iostreams{Err: te}}
	wl := a.startWait("waiting for m", nil)
	if wl == nil {
		t.Fatal("no wait line on a terminal's stderr")
	}
	if _, err := te.Write([]byte("agent: a note\n")); err != nil {
		t.Fatal(err)
	}
	wl.mu.Lock()
	done := wl.done
	wl.mu.Unlock()
	if !done {
		t.Fatal("the wait line goes on after a note was written")
	}
	if !strings.HasSuffix(buf.String(), "agent: a note\n") {
		t.Errorf("stderr: %q", buf.String())
	}
	wl.stop() // a second stop (the turn's end) is harmless

	piped := &app{io: &iostreams{Err: &bytes.Buffer{}}}
	if piped.startWait("waiting for m", nil) != nil {
		t.Error("a wait line on a stderr that is not a terminal")
	}
	jsonOut := &app{io: &iostreams{Err: &termErr{w: &bytes.Buffer{}}}, jsonOut: true}
	if jsonOut.startWait("waiting for m", nil) != nil {
		t.Error("a wait line with --json")
	}
}
