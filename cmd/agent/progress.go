package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressLine shows how far a long job is on one terminal line of stderr,
// "agent: indexing 512/10000 (5%)", redrawn at most every interval (and
// always for the last step), and erased by clear so the summary that follows
// takes its place. It is only for a terminal: the caller checks stderr is
// one. Twenty lines of our own rather than a progress-bar library, whose
// package init every command paid (docs/decisions.md).
type progressLine struct {
	w        io.Writer
	label    string
	interval time.Duration
	last     time.Time
	drawn    bool
}

func (p *progressLine) set(done, total int) {
	now := time.Now()
	if p.drawn && done < total && now.Sub(p.last) < p.interval {
		return
	}
	p.last, p.drawn = now, true
	pct := 100
	if total > 0 {
		pct = done * 100 / total
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s %d/%d (%d%%)", p.label, done, total, pct)
}

// redraws reports whether a line on stderr may be drawn and redrawn (a
// progress line, the wait line): a terminal that understands it, and no
// --quiet.
func (a *app) redraws() bool {
	return a.io.ErrTTY && !a.quiet && os.Getenv("TERM") != "dumb"
}

// progressLine is a progress line for a long job on stderr, or nil when
// stderr is no terminal, or a dumb one that cannot erase a line (it gets
// the summary only), or --quiet.
func (a *app) progressLine(label string) *progressLine {
	if !a.redraws() {
		return nil
	}
	return &progressLine{w: a.io.Err, label: label, interval: 100 * time.Millisecond}
}

// clear erases the line, if anything was drawn.
func (p *progressLine) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
