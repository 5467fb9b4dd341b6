package main

import (
	"bytes"
	"io"
	"strings"
)

// Bracketed paste: a terminal told pasteOn wraps what the user pastes in
// pasteStart … pasteEnd, so a paste of many lines can be told apart from
// lines typed and sent one by one.
const (
	pasteOn    = "\x1b[?2004h"
	pasteOff   = "\x1b[?2004l"
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// pasteBreak stands for a line break inside a paste while it sits in the
// one-line editor: the editor would send the line at a real one. It is
// shown as is (the user sees where the pasted lines break) and turned back
// into "\n" when the message is read (pastedText).
const pasteBreak = "↵"

// pastedText turns the line breaks of a paste, held in the editor as
// pasteBreak, back into line breaks.
func pastedText(line string) string {
	return strings.ReplaceAll(line, pasteBreak, "\n")
}

// pasteReader passes the terminal's keys through, but reads a bracketed
// paste as text: its line breaks become pasteBreak and its markers are
// dropped, so the editor gets one line for the whole paste.
type pasteReader struct {
	r       io.Reader
	pasting bool
	afterCR bool   // the paste's last byte was "\r"
	pending []byte // read, not yet given out: a partial marker at the end
	out     []byte // given out at the next Read
}

func (p *pasteReader) Read(b []byte) (int, error) {
	for len(p.out) == 0 {
		buf := make([]byte, 4096)
		n, err := p.r.Read(buf)
		if n > 0 {
			p.feed(buf[:n])
		}
		if err != nil {
			p.out = append(p.out, p.pending...) // no marker will complete it
			p.pending = nil
			if len(p.out) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(b, p.out)
	p.out = p.out[n:]
	return n, nil
}

// feed adds what was read, translating a paste and keeping a partial
// marker (a paste split across two reads) for the next read.
func (p *pasteReader) feed(data []byte) {
	data = append(p.pending, data...)
	p.pending = nil
	for len(data) > 0 {
		marker := pasteStart
		if p.pasting {
			marker = pasteEnd
		}
		if i := bytes.Index(data, []byte(marker)); i >= 0 {
			p.emit(data[:i])
			data = data[i+len(marker):]
			p.pasting = !p.pasting
			continue
		}
		// The end may hold the start of a marker: keep it back.
		keep := 0
		for k := len(marker) - 1; k > 0; k-- {
			if bytes.HasSuffix(data, []byte(marker[:k])) {
				keep = k
				break
			}
		}
		// A lone ESC held back waits for the next key, as the editor
		// itself does to tell ESC from an escape sequence.
		p.emit(data[:len(data)-keep])
		p.pending = append([]byte(nil), data[len(data)-keep:]...)
		return
	}
}

func (p *pasteReader) emit(b []byte) {
	if !p.pasting {
		p.out = append(p.out, b...)
		return
	}
	// "\r", "\n" and "\r\n" (maybe split between two reads) are one
	// break each. A trailing break is dropped with the message's trim.
	for _, c := range b {
		switch {
		case c == '\n' && p.afterCR:
		case c == '\r' || c == '\n':
			p.out = append(p.out, pasteBreak...)
		default:
			p.out = append(p.out, c)
		}
		p.afterCR = c == '\r'
	}
}
