package compact

import (
	"reflect"
	"testing"
)

// Over its cap a summary loses its oldest lines, whole.
func TestTrimKeepsTheNewestLines(t *testing.T) {
	lines := []Line{{"one", "logs/a.md:1"}, {"two", "logs/a.md:2"}, {"three", "logs/a.md:3"}}
	width := len(lines[2].String()) + 1
	got, n := trim(lines, 2*width)
	if n != 1 || !reflect.DeepEqual(got, lines[1:]) {
		t.Errorf("trim to two lines: %v (%d left out)", got, n)
	}
	if got, n := trim(lines, 0); n != 0 || len(got) != 3 {
		t.Errorf("no cap: %v (%d left out)", got, n)
	}
}
