package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// iostreams carries the three standard streams and the facts about them that
// change rendering. Tests build one with buffers and flip the TTY flags to
// check both the human and the piped output.
type iostreams struct {
	In     io.Reader
	Out    io.Writer // data only: answers, hits, JSON
	Err    io.Writer // diagnostics, always prefixed "agent: "
	InTTY  bool
	OutTTY bool
	ErrTTY bool
	Color  bool // ANSI colour on Out: a TTY and NO_COLOR unset
}

func systemStreams() *iostreams {
	s := &iostreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	s.Color = s.OutTTY && !noColor && os.Getenv("TERM") != "dumb"
	return s
}
