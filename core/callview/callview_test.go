package callview

import (
	"errors"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	got := strings.Join(Lines(map[string]any{
		"path":    "notes.md",
		"content": "line one\n\x1b[31mred\u202eevil\n",
		"limit":   3.0,
		"filter":  map[string]any{"owner": "me\u2028you"},
		"a b":     true,
	}), "\n")
	want := `  "a b": true
  content: (text, 3 lines)
  │ line one
  │ \x1b[31mred\u202eevil
  │ 
  filter:
  │ {
  │   "owner": "me\u2028you"
  │ }
  limit: 3
  path: "notes.md"`
	if got != want {
		t.Fatalf("Lines:\n%s\nwant:\n%s", got, want)
	}
	if l := Lines(nil); len(l) != 1 || l[0] != "  (no arguments)" {
		t.Fatalf("no arguments: %q", l)
	}
}

// A long value is wrapped, every character kept, each continuation marked.
func TestWrapKeepsEverything(t *testing.T) {
	long := "  text: \"" + strings.Repeat("abcdefghij", 30) + "END\""
	lines := Wrap([]string{long, "short"}, 40)
	if len(lines) < 8 || lines[len(lines)-1] != "short" {
		t.Fatalf("wrap: %q", lines)
	}
	var joined strings.Builder
	for i, l := range lines[:len(lines)-1] {
		if len([]rune(l)) > 40 {
			t.Errorf("line %d is %d wide: %q", i, len([]rune(l)), l)
		}
		if i > 0 {
			if !strings.HasPrefix(l, "  ↪ ") {
				t.Errorf("continuation %d unmarked: %q", i, l)
			}
			l = strings.TrimPrefix(l, "  ↪ ")
		}
		joined.WriteString(l)
	}
	if joined.String() != long {
		t.Fatalf("wrapping lost or changed text:\n%s\n%s", joined.String(), long)
	}
	// Wide characters count as two columns.
	if w := Wrap([]string{strings.Repeat("界", 30)}, 20); len([]rune(w[0])) != 10 {
		t.Fatalf("wide: %q", w)
	}
}

func TestPage(t *testing.T) {
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = "line " + string(rune('A'+i%26))
	}
	var out strings.Builder
	var prompts []string
	enter := func(p string) (string, error) { prompts = append(prompts, p); return "", nil }
	if !Page(&out, lines, 22, enter) {
		t.Fatal("paged through to the end: not reported as shown")
	}
	if strings.Count(out.String(), "\n") != 50 || len(prompts) != 2 || prompts[0] != "-- lines 1-20 of 50: Enter for more, n to refuse -- " {
		t.Fatalf("pages: %d lines, prompts %q", strings.Count(out.String(), "\n"), prompts)
	}

	out.Reset()
	refuse := func(string) (string, error) { return "n", nil }
	if Page(&out, lines, 22, refuse) || strings.Count(out.String(), "\n") != 20 {
		t.Fatalf("refused at the first page: %d lines shown", strings.Count(out.String(), "\n"))
	}
	eof := func(string) (string, error) { return "", errors.New("EOF") }
	if Page(&out, lines, 22, eof) {
		t.Fatal("a closed terminal counts as seen")
	}

	out.Reset()
	if !Page(&out, lines[:10], 22, refuse) || strings.Count(out.String(), "\n") != 10 {
		t.Fatal("a call that fits is not shown at once")
	}
}
