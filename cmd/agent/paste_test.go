package main

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A bracketed paste reaches the line editor as one line, its breaks held
// as pasteBreak, however the terminal's bytes are split between reads;
// keys around it pass through unchanged.
func TestPasteReaderOneLinePerPaste(t *testing.T) {
	in := "ab\x1b[A" + pasteStart + "one\r\ntwo\rthree\n" + pasteEnd + "\r\x1b"
	want := "ab\x1b[A" + "one↵two↵three↵" + "\r\x1b"
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		got, err := io.ReadAll(&pasteReader{r: r})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("read %q, want %q", got, want)
		}
	}
	if got := pastedText("one↵two"); got != "one\ntwo" {
		t.Errorf("pastedText: %q", got)
	}
}
