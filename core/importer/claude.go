package importer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Claude's export conversations.json, as the projects that read it describe
// it: an array of conversations, each with its messages in order in
// "chat_messages"; a message's words are in "text" and, in newer exports,
// split into typed blocks in "content"; uploaded files are listed in
// "attachments" (with their extracted text) and "files".
type claudeConversation struct {
	UUID         string          `json:"uuid"`
	Name         string          `json:"name"`
	CreatedAt    string          `json:"created_at"`
	ChatMessages []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	UUID        string          `json:"uuid"`
	Sender      string          `json:"sender"`
	CreatedAt   string          `json:"created_at"`
	Text        string          `json:"text"`
	Content     []claudeContent `json:"content"`
	Attachments []struct {
		FileName         string `json:"file_name"`
		FileType         string `json:"file_type"`
		FileSize         int64  `json:"file_size"`
		ExtractedContent string `json:"extracted_content"`
	} `json:"attachments"`
	Files []struct {
		FileName string `json:"file_name"`
	} `json:"files"`
}

type claudeContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
}

// readClaude converts conversation i of the decoded export.
func readClaude(i int, r json.RawMessage) (Conversation, error) {
	var cc claudeConversation
	if err := json.Unmarshal(r, &cc); err != nil {
		return Conversation{}, fmt.Errorf("conversation %d: %w", i+1, err)
	}
	c, err := cc.convert()
	if err != nil {
		return c, fmt.Errorf("conversation %d (%q): %w", i+1, cc.Name, err)
	}
	return c, nil
}

func (cc *claudeConversation) convert() (Conversation, error) {
	c := Conversation{ID: cc.UUID, Title: cc.Name, Origin: Claude}
	if c.ID == "" {
		return c, fmt.Errorf("no uuid")
	}
	if cc.ChatMessages == nil {
		return c, fmt.Errorf("no chat_messages (not a Claude export?)")
	}
	for j, cm := range cc.ChatMessages {
		m := Message{ID: cm.UUID}
		if m.ID == "" {
			m.ID = fmt.Sprintf("#%d", j+1)
		}
		switch cm.Sender {
		case "human", "user":
			m.Role = "user"
		case "assistant":
			m.Role = "assistant"
		default:
			continue
		}
		if cm.CreatedAt != "" {
			t, err := time.Parse(time.RFC3339Nano, cm.CreatedAt)
			if err != nil {
				return c, fmt.Errorf("message %d: created_at %q: not an RFC 3339 time", j+1, cm.CreatedAt)
			}
			m.At = t.UTC().Truncate(time.Second)
		}
		var text []string
		for _, b := range cm.Content {
			switch b.Type {
			case "text":
				if strings.TrimSpace(b.Text) != "" {
					text = append(text, b.Text)
				}
			case "tool_use":
				m.Extras = append(m.Extras, "tool call "+cmp.Or(b.Name, "(unnamed)")+" (not imported)")
			case "tool_result":
				m.Extras = append(m.Extras, "tool result (not imported)")
			case "thinking":
				// the model's hidden reasoning, not its answer
			default:
				m.Extras = append(m.Extras, b.Type+" (not imported)")
			}
		}
		if len(text) == 0 {
			// Older exports carry the words in text only.
			if strings.TrimSpace(cm.Text) != "" {
				text = append(text, cm.Text)
			}
		}
		m.Text = strings.Join(text, "\n\n")
		for _, a := range cm.Attachments {
			what := "attachment " + cmp.Or(a.FileName, "(unnamed)")
			if a.FileSize > 0 {
				what += fmt.Sprintf(", %d bytes", a.FileSize)
			}
			if a.ExtractedContent != "" {
				what += fmt.Sprintf(", %d characters of text", len([]rune(a.ExtractedContent)))
			}
			m.Extras = append(m.Extras, what+" (not imported)")
		}
		for _, f := range cm.Files {
			m.Extras = append(m.Extras, "file "+cmp.Or(f.FileName, "(unnamed)")+" (not imported)")
		}
		if m.hasText() {
			c.Messages = append(c.Messages, m)
		}
	}
	if cc.CreatedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, cc.CreatedAt)
		if err != nil {
			return c, fmt.Errorf("created_at %q: not an RFC 3339 time", cc.CreatedAt)
		}
		c.Started = t.UTC().Truncate(time.Second)
	} else if len(c.Messages) > 0 {
		c.Started = c.Messages[0].At
	}
	if c.Started.IsZero() && len(c.Messages) > 0 {
		return c, fmt.Errorf("no created_at")
	}
	return c, nil
}
