package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// waitDelay is how long a reply may take to begin before the terminal shows
// that it is being waited for: a loaded model answers well within it, so
// the line never flickers on a fast turn.
const waitDelay = 300 * time.Millisecond

// waitFrames is the spinner, drawn in place on stderr.
var waitFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// termErr is stderr when it is a terminal. Anything written to it first
// ends the wait line for good (erasing it), so a note, a question or the
// line editor's prompt never lands after a spinner's frame.
type termErr struct {
	w    io.Writer
	mu   sync.Mutex
	wait *waitLine
}

func (t *termErr) Write(p []byte) (int, error) {
	t.mu.Lock()
	wl := t.wait
	t.wait = nil
	t.mu.Unlock()
	wl.stop()
	return t.w.Write(p)
}

// waitLine is "⠋ waiting for llama3.2… 12s" on stderr while a reply has not begun,
// shown after waitDelay, erased by stop (at the first token, at the turn's
// end, or when anything else is written to stderr).
type waitLine struct {
	w     io.Writer
	what  string
	probe func(context.Context) string // says better what is waited for; nil: none
	mu    sync.Mutex
	shown bool
	done  bool
	quit  chan struct{}
}

// startWait shows what a turn waits for, on a terminal's stderr only: nil
// (a no-op) when stderr is not one or when --json is on.
//
// probe, when not nil, is asked once, only after waitDelay has passed and
// the first frame is drawn, what exactly is waited for ("loading MODEL");
// its answer, when not "", replaces what from then on.
func (a *app) startWait(what string, probe func(context.Context) string) *waitLine {
	te, ok := a.io.Err.(*termErr)
	if !ok || a.jsonOut {
		return nil
	}
	wl := &waitLine{w: te.w, what: what, probe: probe, quit: make(chan struct{})}
	te.mu.Lock()
	prev := te.wait
	te.wait = wl
	te.mu.Unlock()
	prev.stop()
	go wl.run()
	return wl
}

func (wl *waitLine) run() {
	timer := time.NewTimer(waitDelay)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-wl.quit:
		return
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	start := time.Now().Add(-waitDelay)
	for i := 0; ; i++ {
		wl.mu.Lock()
		if wl.done {
			wl.mu.Unlock()
			return
		}
		// \r and erase-line: the frame is redrawn in place. The seconds
		// tell a model loading for minutes from a hung one.
		elapsed := ""
		if d := time.Since(start); d >= 2*time.Second {
			elapsed = fmt.Sprintf(" %ds", int(d.Seconds()))
		}
		fmt.Fprintf(wl.w, "\r\x1b[K%s %s…%s", waitFrames[i%len(waitFrames)], wl.what, elapsed)
		wl.shown = true
		wl.mu.Unlock()
		if i == 0 && wl.probe != nil {
			go wl.ask()
		}
		select {
		case <-tick.C:
		case <-wl.quit:
			return
		}
	}
}

// ask runs the probe once, cancelled when the line stops, and takes its
// answer for the frames still to come.
func (wl *waitLine) ask() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-wl.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	if what := wl.probe(ctx); what != "" {
		wl.mu.Lock()
		wl.what = what
		wl.mu.Unlock()
	}
}

// stop erases the line if it was drawn; after it returns nothing more is
// drawn. Safe on nil and more than once.
func (wl *waitLine) stop() {
	if wl == nil {
		return
	}
	wl.mu.Lock()
	defer wl.mu.Unlock()
	if wl.done {
		return
	}
	wl.done = true
	close(wl.quit)
	if wl.shown {
		io.WriteString(wl.w, "\r\x1b[K")
	}
}
