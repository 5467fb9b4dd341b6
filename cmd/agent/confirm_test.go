package main

import (
	"io"
	"strings"
	"testing"
)

// confirm is the one y/N question (mcp import, jobs install --write): yes
// only for a line that says y or yes; it reads that line and no further.
func TestConfirm(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"y\n", true}, {"Y\n", true}, {"yes\n", true}, {"  YES \r\n", true}, {"y", true},
		{"n\n", false}, {"\n", false}, {"", false}, {"yes please\n", false}, {"y extra\n", false}, {"no\ny\n", false},
	} {
		var errb strings.Builder
		in := strings.NewReader(c.in)
		a := &app{io: &iostreams{In: in, Err: &errb}}
		if got := a.confirm("write it?"); got != c.want {
			t.Errorf("answer %q: %v, want %v", c.in, got, c.want)
		}
		if errb.String() != "agent: write it? [y/N] " {
			t.Errorf("question %q", errb.String())
		}
		if c.in == "no\ny\n" {
			if rest, _ := io.ReadAll(in); string(rest) != "y\n" {
				t.Errorf("read past the answer's line: %q left", rest)
			}
		}
	}
}
