// Package skills reads, finds and keeps Agent Skills: a directory NAME/
// holding SKILL.md (YAML frontmatter with a name and a description, then
// instructions) and any resource files the instructions mention. Skills are
// found in the workspace and in the directories AGENT_SKILLS_PATH lists; a
// broken one is reported, never fatal. Workspace skills keep every version
// in state.db, like SOUL.md. Nothing in a skill is ever executed.
package skills

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"agent/memory/printable"
)

// Limits of the Agent Skills format, and this agent's own caps.
const (
	FileName          = "SKILL.md"
	MaxNameLen        = 64
	MaxDescriptionLen = 1024 // characters
	// MaxFileBytes caps the SKILL.md agent will read at all; a larger one is
	// reported as invalid rather than read into every listing.
	MaxFileBytes = 256 << 10
	// MaxBodyBytes caps what the model may save as a skill's body: a body
	// this size comes back from skill_read(name) whole (see MaxReadBytes).
	MaxBodyBytes = 8 << 10
)

// Skill is one valid skill as found on disk.
type Skill struct {
	Name        string
	Description string
	// Body is the instructions after the frontmatter; BodyLine is the line
	// of SKILL.md it starts on, for citations.
	Body     string
	BodyLine int
	// Extra holds the frontmatter's other keys (license, metadata, …):
	// kept, shown, never acted on.
	Extra map[string]any
	// Dir is the skill's directory; Workspace says it is <home>/skills/NAME.
	Dir       string
	Workspace bool
	// Content is SKILL.md exactly as read.
	Content string
}

// Path is the skill's SKILL.md.
func (s Skill) Path() string { return s.Dir + "/" + FileName }

// ValidName checks a skill name: 1 to 64 lowercase ASCII letters, digits and
// hyphens, not starting or ending with a hyphen and without two in a row
// (the Agent Skills rules).
func ValidName(name string) error {
	switch {
	case name == "":
		return invalidf("empty skill name")
	case len(name) > MaxNameLen:
		return invalidf("skill name is %d characters; the limit is %d", len(name), MaxNameLen)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--"):
		return invalidf("skill name %q: hyphens may not start or end it or come two in a row", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return invalidf("skill name %q: only lowercase letters, digits and hyphens are allowed", printable.OneLine(name))
		}
	}
	return nil
}

// ValidDescription checks a description: not empty, at most 1024 characters.
func ValidDescription(d string) error {
	if strings.TrimSpace(d) == "" {
		return invalidf("the description is empty; say what the skill does and when to use it")
	}
	if n := utf8.RuneCountInString(d); n > MaxDescriptionLen {
		return invalidf("the description is %d characters; the limit is %d", n, MaxDescriptionLen)
	}
	return nil
}

// Parse reads the SKILL.md of the directory dirName. Every way it can be
// wrong is an ErrInvalid error whose message is the reason, one line.
func Parse(dirName string, data []byte) (Skill, error) {
	if len(data) > MaxFileBytes {
		return Skill{}, invalidf("%s is over the %d-byte limit", FileName, MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return Skill{}, invalidf("%s is not valid UTF-8 text", FileName)
	}
	front, body, bodyLine, err := splitFrontmatter(data)
	if err != nil {
		return Skill{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return Skill{}, yamlError(err)
	}
	fields := map[string]any{}
	if doc.Kind != 0 { // an empty frontmatter decodes to a zero node
		if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
			return Skill{}, invalidf("bad frontmatter: want key: value lines")
		}
		if err := doc.Decode(&fields); err != nil {
			return Skill{}, yamlError(err)
		}
	}
	name, err := textField(fields, "name")
	if err != nil {
		return Skill{}, err
	}
	if name == "" {
		return Skill{}, invalidf("the frontmatter has no name")
	}
	if err := ValidName(name); err != nil {
		return Skill{}, err
	}
	if name != dirName {
		return Skill{}, invalidf("name %q does not match the directory name %q", name, dirName)
	}
	desc, err := textField(fields, "description")
	if err != nil {
		return Skill{}, err
	}
	if desc == "" {
		return Skill{}, invalidf("the frontmatter has no description")
	}
	if err := ValidDescription(desc); err != nil {
		return Skill{}, err
	}
	delete(fields, "name")
	delete(fields, "description")
	s := Skill{Name: name, Description: desc, Body: body, BodyLine: bodyLine, Content: string(data)}
	if len(fields) > 0 {
		s.Extra = fields
	}
	return s, nil
}

// yamlError is the parser's complaint on one line, without its prefixes.
func yamlError(err error) error {
	msg := printable.OneLine(err.Error())
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors: ")
	return invalidf("bad frontmatter: %s", msg)
}

func textField(fields map[string]any, key string) (string, error) {
	v, ok := fields[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidf("%s must be text, not %v", key, v)
	}
	return strings.TrimSpace(s), nil
}

// splitFrontmatter returns the YAML between the opening and closing "---"
// lines, the body after them, and the body's first line number.
func splitFrontmatter(data []byte) (front []byte, body string, bodyLine int, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, "", 0, invalidf("no frontmatter: %s must begin with a --- line", FileName)
	}
	line := 2
	for off := 0; off <= len(rest); line++ {
		end := bytes.IndexByte(rest[off:], '\n')
		next := len(rest)
		cur := rest[off:]
		if end >= 0 {
			cur, next = rest[off:off+end], off+end+1
		}
		if string(bytes.TrimRight(cur, " \t\r")) == "---" {
			return rest[:off], string(rest[next:]), line + 1, nil
		}
		if end < 0 {
			break
		}
		off = next
	}
	return nil, "", 0, invalidf("bad frontmatter: no closing --- line")
}

// Render writes a SKILL.md with name, description and body. When old is an
// existing SKILL.md with readable frontmatter, its other keys, their order
// and comments are kept; only name and description change.
func Render(old, name, description, body string) (string, error) {
	var node *yaml.Node
	if old != "" {
		if front, _, _, err := splitFrontmatter([]byte(old)); err == nil {
			var doc yaml.Node
			if yaml.Unmarshal(front, &doc) == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
				node = doc.Content[0]
			}
		}
	}
	if node == nil {
		node = &yaml.Node{Kind: yaml.MappingNode}
	}
	setKey(node, "name", name)
	setKey(node, "description", description)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return "", fmt.Errorf("render %s: %w", FileName, err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("render %s: %w", FileName, err)
	}
	body = strings.TrimLeft(body, "\n")
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return "---\n" + b.String() + "---\n\n" + body, nil
}

// setKey sets key to a plain string value, in place if the mapping has it,
// else at the front in the order name, description.
func setKey(m *yaml.Node, key, value string) {
	val := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = val
			return
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	at := 0
	if key == "description" && len(m.Content) >= 2 && m.Content[0].Value == "name" {
		at = 2
	}
	m.Content = append(m.Content[:at], append([]*yaml.Node{k, val}, m.Content[at:]...)...)
}
