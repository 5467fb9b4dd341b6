// Package importer brings chat histories exported from other assistants
// (ChatGPT's and Claude's conversations.json) into the workspace as
// markdown: one file per conversation under imports/, which the index reads
// like the logs. Every import is recorded in state.db with what it wrote, so
// a re-import adds only what is new and an undo removes exactly that.
package importer

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"agent/memory"
	"agent/memory/printable"
)

// Origins of an export.
const (
	ChatGPT = "chatgpt"
	Claude  = "claude"
)

// originName is how an origin is named in headings.
var originName = map[string]string{ChatGPT: "ChatGPT", Claude: "Claude"}

// Conversation is one conversation of an export, the path the user ended on
// only, in order.
type Conversation struct {
	ID       string
	Title    string
	Origin   string
	Started  time.Time
	Messages []Message
}

// Message is one turn: the user's or the assistant's words, and what else it
// carried (images, tool calls, attachments) named but not copied.
type Message struct {
	ID     string
	Role   string // "user" or "assistant"
	At     time.Time
	Text   string
	Extras []string // "image", "attachment notes.pdf (extracted text below)", …
}

// hasText says whether the message carries anything worth keeping.
func (m Message) hasText() bool { return strings.TrimSpace(m.Text) != "" || len(m.Extras) > 0 }

// heading is the conversation's top heading: its date and time, origin and
// title, so every chunk's heading path says where it came from.
func (c *Conversation) heading(loc *time.Location) string {
	title := printable.OneLine(c.Title)
	if title == "" {
		title = "Untitled"
	}
	return fmt.Sprintf("%s · %s · %s", c.Started.In(loc).Format("2006-01-02 15:04"), originName[c.Origin], title)
}

// render writes msgs of c as one markdown file: front matter that dates it
// for the index and names where it came from, the heading, then a section
// per message with the speaker and time. part > 1 marks a continuation
// written by a later import.
func render(c *Conversation, msgs []Message, part int, loc *time.Location) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ndate: %s\norigin: %s\nconversation: %s\n", c.Started.In(loc).Format(time.DateOnly), c.Origin, yamlScalar(c.ID))
	if c.Title != "" {
		fmt.Fprintf(&b, "title: %s\n", yamlScalar(printable.OneLine(c.Title)))
	}
	b.WriteString("---\n\n# " + c.heading(loc))
	if part > 1 {
		fmt.Fprintf(&b, " (continued, part %d)", part)
	}
	b.WriteString("\n")
	for i, m := range msgs {
		// A run of one speaker's messages (a tool call, its output, then
		// the answer) is one section.
		if i == 0 || msgs[i-1].Role != m.Role {
			who := "You"
			if m.Role == "assistant" {
				who = originName[c.Origin]
			}
			at := ""
			if !m.At.IsZero() {
				at = " · " + m.At.In(loc).Format("2006-01-02 15:04")
			}
			fmt.Fprintf(&b, "\n## %s%s\n", who, at)
		}
		if lines := memory.ContainBody(m.Text); lines != nil { // redacted when read (redacted)
			b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
		}
		for j, x := range m.Extras {
			if j == 0 {
				b.WriteString("\n")
			}
			b.WriteString("- [" + escapeInline(x) + "]\n")
		}
	}
	return []byte(b.String())
}

// escapeInline keeps a title from closing the bracket or heading it sits in.
func escapeInline(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`, "\n", " ").Replace(s)
}

// yamlScalar quotes a front matter value.
func yamlScalar(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

var idJunk = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// maxSlug bounds the title's part of a file name, in bytes: with the date,
// id and suffixes the name stays far below the 255 bytes file systems allow.
const maxSlug = 60

// slug is a title as a file name's part: its letters, marks and digits in
// any script, lowercased, every run of anything else (separators, control
// characters, punctuation, spaces) one "-", cut at a letter's boundary.
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range title {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) && b.Len() > 0 {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > maxSlug {
		cut := maxSlug
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		// a mark belongs to the letter before it: cut before both
		for cut > 0 {
			r, n := utf8.DecodeLastRuneInString(s[:cut])
			if !unicode.IsMark(r) && r != '-' {
				break
			}
			cut -= n
		}
		s = s[:cut]
	}
	return s
}

// fileName is the conversation's file under imports/: its date and time
// first so a listing sorts by time, a slug of the title, and a short id so
// two conversations with one title and minute never share a file.
func fileName(c *Conversation, part int, loc *time.Location) string {
	slug := cmp.Or(slug(c.Title), "untitled")
	id := idJunk().ReplaceAllString(strings.ToLower(c.ID), "")
	if len(id) > 8 {
		id = id[:8]
	}
	t := c.Started.In(loc)
	name := fmt.Sprintf("%s-%s-%s", t.Format("2006-01-02-1504"), slug, id)
	if part > 1 {
		name += fmt.Sprintf("-part%d", part)
	}
	return fmt.Sprintf("%s/%s/%s/%s.md", memory.ImportsDir, c.Origin, t.Format("2006"), name)
}
