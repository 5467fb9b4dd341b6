package skills

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	long := strings.Repeat("d", MaxDescriptionLen+1)
	for _, tc := range []struct {
		name, dir, data string
		reason          string // "" for a valid skill
	}{
		{"good", "pdf-forms", "---\nname: pdf-forms\ndescription: Fill PDF forms. Use when the user sends a form.\n---\n\n# Steps\n\n1. Read it.\n", ""},
		{"crlf and bom", "notes", "\xef\xbb\xbf---\r\nname: notes\r\ndescription: Take notes\r\n---\r\nBody\r\n", ""},
		{"folded description", "tidy", "---\nname: tidy\ndescription: >\n  Tidy the\n  inbox.\n---\n", ""},
		{"no frontmatter", "x", "# Just markdown\n", "no frontmatter: SKILL.md must begin with a --- line"},
		{"unclosed", "x", "---\nname: x\ndescription: y\n", "bad frontmatter: no closing --- line"},
		{"bad yaml", "x", "---\nname: [x\ndescription: y\n---\n", "bad frontmatter: line 1: did not find expected ',' or ']'"},
		{"duplicate key", "x", "---\nname: x\nname: x\ndescription: y\n---\n", "bad frontmatter: line 2: mapping key \"name\" already defined at line 1"},
		{"a list, not a mapping", "x", "---\n- name\n---\n", "bad frontmatter: want key: value lines"},
		{"empty frontmatter", "x", "---\n---\nbody\n", "the frontmatter has no name"},
		{"name not text", "x", "---\nname: [1, 2]\ndescription: y\n---\n", "name must be text, not [1 2]"},
		{"name mismatch", "pdf", "---\nname: pdf-forms\ndescription: y\n---\n", `name "pdf-forms" does not match the directory name "pdf"`},
		{"uppercase name", "PDF", "---\nname: PDF\ndescription: y\n---\n", `skill name "PDF": only lowercase letters, digits and hyphens are allowed`},
		{"leading hyphen", "-x", "---\nname: -x\ndescription: y\n---\n", `skill name "-x": hyphens may not start or end it or come two in a row`},
		{"name too long", strings.Repeat("a", 65), "---\nname: " + strings.Repeat("a", 65) + "\ndescription: y\n---\n", "skill name is 65 characters; the limit is 64"},
		{"missing description", "x", "---\nname: x\n---\nbody\n", "the frontmatter has no description"},
		{"description too long", "x", "---\nname: x\ndescription: " + long + "\n---\n", "the description is 1025 characters; the limit is 1024"},
		{"not utf-8", "x", "---\nname: x\ndescription: caf\xe9\n---\n", "SKILL.md is not valid UTF-8 text"},
		{"too big", "x", "---\nname: x\ndescription: y\n---\n" + strings.Repeat("z", MaxFileBytes), "SKILL.md is over the 262144-byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.dir, []byte(tc.data))
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if s.Name != tc.dir || s.Description == "" {
					t.Fatalf("Parse = %+v", s)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || err.Error() != tc.reason {
				t.Fatalf("Parse error = %v, want %q (ErrInvalid)", err, tc.reason)
			}
		})
	}
}

func TestParseKeepsExtraKeysAndBodyLine(t *testing.T) {
	data := "---\nname: pdf\ndescription: Fill forms\nlicense: MIT\nmetadata:\n  author: ana\nallowed-tools: Read\n---\n\nStep one.\n"
	s, err := Parse("pdf", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if s.Description != "Fill forms" || s.Body != "\nStep one.\n" || s.BodyLine != 9 || s.Content != data {
		t.Fatalf("Parse = %+v", s)
	}
	if s.Extra["license"] != "MIT" || s.Extra["allowed-tools"] != "Read" || s.Extra["metadata"].(map[string]any)["author"] != "ana" || len(s.Extra) != 3 {
		t.Fatalf("Extra = %v", s.Extra)
	}
	if b := Body(s); b.StartLine != 9 || b.EndLine != 10 || b.Text != s.Body {
		t.Fatalf("Body = %+v", b)
	}
}

func TestRenderKeepsOtherKeys(t *testing.T) {
	old := "---\n# mine\nlicense: MIT\nname: pdf\ndescription: old\nmetadata:\n  author: ana\n---\nold body\n"
	got, err := Render(old, "pdf", "new: with a colon", "new body")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\n# mine\nlicense: MIT\nname: pdf\ndescription: 'new: with a colon'\nmetadata:\n  author: ana\n---\n\nnew body\n"
	if got != want {
		t.Fatalf("Render =\n%s\nwant\n%s", got, want)
	}
	s, err := Parse("pdf", []byte(got))
	if err != nil || s.Description != "new: with a colon" || s.Extra["license"] != "MIT" {
		t.Fatalf("re-parse = %+v, %v", s, err)
	}
	// No old file, or an unreadable one: a fresh frontmatter, name first.
	for _, o := range []string{"", "no frontmatter at all\n"} {
		got, err := Render(o, "x", "d", "b\n")
		if err != nil || got != "---\nname: x\ndescription: d\n---\n\nb\n" {
			t.Fatalf("Render(%q) = %q, %v", o, got, err)
		}
	}
}
