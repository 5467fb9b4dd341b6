package importer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
)

// Claude's export conversations.json, as the projects that read it describe
// it: an array of conversations, each with its messages in order in
// "chat_messages"; a message's words are in "text" and, in newer exports,
// split into typed blocks in "content"; uploaded files are listed in
// "attachments" (with their extracted text) and "files" (objects with a
// file_name, or plain names). Only what the import uses is declared.
type claudeConversation struct {
	UUID         text            `json:"uuid"`
	Name         loose           `json:"name"`
	CreatedAt    stamp           `json:"created_at"`
	ChatMessages []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	UUID        text      `json:"uuid"`
	Sender      text      `json:"sender"`
	CreatedAt   stamp     `json:"created_at"`
	Text        text      `json:"text"`
	Content     []block   `json:"content"`
	Attachments looseList `json:"attachments"`
	Files       looseList `json:"files"`
}

// block is one of a message's typed blocks; a block that is only a string
// is its text.
type block struct{ looseObject }

func (b *block) UnmarshalJSON(data []byte) error {
	if data[0] == '"' {
		b.looseObject = looseObject{"type": json.RawMessage(`"text"`), "text": data}
		return nil
	}
	return b.looseObject.UnmarshalJSON(data)
}

// readClaude converts one conversation of the export; t counts its
// messages by kind.
func readClaude(r json.RawMessage, t *tally) (Conversation, []string, error) {
	var cc claudeConversation
	if err := json.Unmarshal(r, &cc); err != nil {
		return named(r, "uuid", "name"), nil, inMessage(err, r, "chat_messages", func(raw json.RawMessage) error {
			var m claudeMessage
			return json.Unmarshal(raw, &m)
		})
	}
	c, err := cc.convert(t)
	return c, nil, err
}

func (cc *claudeConversation) convert(t *tally) (Conversation, error) {
	c := Conversation{ID: string(cc.UUID), Title: string(cc.Name), Origin: Claude}
	if c.ID == "" {
		return c, fmt.Errorf("no uuid")
	}
	if cc.ChatMessages == nil {
		return c, fmt.Errorf("no chat_messages (not a Claude export?)")
	}
	for j, cm := range cc.ChatMessages {
		m := Message{ID: string(cm.UUID), At: cm.CreatedAt.Time}
		if m.ID == "" {
			m.ID = fmt.Sprintf("#%d", j+1)
		}
		switch cm.Sender {
		case "human", "user":
			m.Role = "user"
		case "assistant":
			m.Role = "assistant"
		default:
			t.leftOut("from " + cmp.Or(string(cm.Sender), "no one"))
			continue
		}
		var words []string
		for _, b := range cm.Content {
			switch typ := b.str("type"); typ {
			case "text":
				if s := b.str("text"); strings.TrimSpace(s) != "" {
					words = append(words, s)
					t.text("text")
				}
			case "voice_note":
				// What the user said aloud, transcribed: their words.
				if s := cmp.Or(b.str("transcript"), b.str("text")); strings.TrimSpace(s) != "" {
					words = append(words, s)
					t.text("voice note")
				} else {
					m.Extras = append(m.Extras, "voice note, no transcript (not imported)")
					t.named("voice note")
				}
			case "tool_use":
				m.Extras = append(m.Extras, "tool call "+cmp.Or(b.str("name"), "(unnamed)")+" (not imported)")
				t.named("tool call")
			case "tool_result":
				m.Extras = append(m.Extras, "tool result (not imported)")
				t.named("tool result")
			case "thinking", "redacted_thinking":
				t.leftOut("hidden reasoning") // the model's, not its answer
			case "token_budget":
				t.leftOut("internal") // the service's bookkeeping, never shown
			case "":
				t.leftOut("unknown block")
			default:
				m.Extras = append(m.Extras, typ+" (not imported)")
				t.named(typ)
			}
		}
		if len(words) == 0 && strings.TrimSpace(string(cm.Text)) != "" {
			// Older exports carry the words in text only.
			words = append(words, string(cm.Text))
			t.text("text")
		}
		m.Text = strings.Join(words, "\n\n")
		for _, raw := range cm.Attachments {
			var a looseObject
			if json.Unmarshal(raw, &a) != nil {
				var name loose
				name.UnmarshalJSON(raw)
				a = looseObject{"file_name": json.RawMessage(fmt.Sprintf("%q", string(name)))}
			}
			what := "attachment " + cmp.Or(a.str("file_name"), "(unnamed)")
			if size := int64(a.num("file_size")); size > 0 {
				what += fmt.Sprintf(", %d bytes", size)
			}
			if x := a.str("extracted_content"); x != "" {
				what += fmt.Sprintf(", %d characters of text", len([]rune(x)))
			}
			m.Extras = append(m.Extras, what+" (not imported)")
			t.named("attachment")
		}
		for _, raw := range cm.Files {
			// An object with file_name, or in some exports the name alone.
			var name loose
			name.UnmarshalJSON(raw)
			if name == "" {
				var f looseObject
				json.Unmarshal(raw, &f)
				name = loose(cmp.Or(f.str("file_name"), f.str("name")))
			}
			m.Extras = append(m.Extras, "file "+cmp.Or(string(name), "(unnamed)")+" (not imported)")
			t.named("file")
		}
		if m.hasText() {
			c.Messages = append(c.Messages, m)
		} else {
			t.leftOut("empty")
		}
	}
	c.Started = cc.CreatedAt.Time
	if c.Started.IsZero() && len(c.Messages) > 0 {
		c.Started = c.Messages[0].At
	}
	if c.Started.IsZero() && len(c.Messages) > 0 {
		return c, fmt.Errorf("no time: created_at is missing and so are its messages' times")
	}
	return c, nil
}
