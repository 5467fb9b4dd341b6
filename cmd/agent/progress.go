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
	// start is the first step's time, for the rate and what is left; now
	// is the clock (time.Now when nil).
	start time.Time
	now   func() time.Time
}

func (p *progressLine) set(done, total int) {
	now := time.Now()
	if p.now != nil {
		now = p.now()
	}
	if p.start.IsZero() {
		p.start = now
	}
	if p.drawn && done < total && now.Sub(p.last) < p.interval {
		return
	}
	p.last, p.drawn = now, true
	pct := 100
	if total > 0 {
		pct = done * 100 / total
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s %d/%d (%d%%)%s", p.label, done, total, pct, p.pace(now, done, total))
}

// pace is ", 85/s, about 41s left" once a second has passed and steps
// remain: on an export of thousands of conversations a count alone does
// not say whether to wait or come back later.
func (p *progressLine) pace(now time.Time, done, total int) string {
	elapsed := now.Sub(p.start)
	if elapsed < time.Second || done <= 0 || done >= total {
		return ""
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second))
	return fmt.Sprintf(", %.0f/s, about %s left", rate, left.Round(time.Second))
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
