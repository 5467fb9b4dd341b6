package importer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The ChatGPT export's conversations.json, as the projects that read it
// describe it: an array of conversations, each a tree of message nodes in
// "mapping" keyed by id (every edit or regeneration is a branch), with
// "current_node" the leaf the user last saw.
type gptConversation struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversation_id"`
	Title          string             `json:"title"`
	CreateTime     *float64           `json:"create_time"`
	UpdateTime     *float64           `json:"update_time"`
	Mapping        map[string]gptNode `json:"mapping"`
	CurrentNode    string             `json:"current_node"`
}

type gptNode struct {
	ID       string      `json:"id"`
	Message  *gptMessage `json:"message"`
	Parent   *string     `json:"parent"`
	Children []string    `json:"children"`
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
		Name string `json:"name"`
	} `json:"author"`
	CreateTime *float64       `json:"create_time"`
	Content    gptContent     `json:"content"`
	Metadata   map[string]any `json:"metadata"`
	Recipient  string         `json:"recipient"`
}

type gptContent struct {
	ContentType string            `json:"content_type"`
	Parts       []json.RawMessage `json:"parts"`
	Text        string            `json:"text"`
	Language    string            `json:"language"`
}

// readChatGPT converts conversation i of the decoded export.
func readChatGPT(i int, r json.RawMessage) (Conversation, error) {
	var g gptConversation
	if err := json.Unmarshal(r, &g); err != nil {
		return Conversation{}, fmt.Errorf("conversation %d: %w", i+1, err)
	}
	c, err := g.convert()
	if err != nil {
		return c, fmt.Errorf("conversation %d (%q): %w", i+1, g.Title, err)
	}
	return c, nil
}

func (g *gptConversation) convert() (Conversation, error) {
	c := Conversation{ID: g.ID, Title: g.Title, Origin: ChatGPT}
	if c.ID == "" {
		c.ID = g.ConversationID
	}
	if c.ID == "" {
		return c, fmt.Errorf("no id")
	}
	if g.Mapping == nil {
		return c, fmt.Errorf("no mapping (not a ChatGPT export?)")
	}
	for _, id := range g.path() {
		n := g.Mapping[id]
		if n.Message == nil {
			continue
		}
		m, ok := n.Message.convert()
		if !ok {
			continue
		}
		if m.ID == "" {
			m.ID = id
		}
		// A tool's output and an assistant's silent tool call belong to the
		// assistant's turn: named under it, not as turns of their own.
		if last := len(c.Messages) - 1; last >= 0 && m.Role == "assistant" && c.Messages[last].Role == "assistant" && strings.TrimSpace(m.Text) == "" {
			c.Messages[last].Extras = append(c.Messages[last].Extras, m.Extras...)
			continue
		}
		c.Messages = append(c.Messages, m)
	}
	switch {
	case g.CreateTime != nil:
		c.Started = epoch(*g.CreateTime)
	case len(c.Messages) > 0 && !c.Messages[0].At.IsZero():
		c.Started = c.Messages[0].At
	case g.UpdateTime != nil:
		c.Started = epoch(*g.UpdateTime)
	}
	if c.Started.IsZero() && len(c.Messages) > 0 {
		return c, fmt.Errorf("no create_time")
	}
	return c, nil
}

// path is the branch the user ended on: current_node and its parents, from
// the root down. Without a usable current_node it follows the newest child
// (the last) from the root, as the ChatGPT page shows a conversation.
func (g *gptConversation) path() []string {
	leaf := g.CurrentNode
	if _, ok := g.Mapping[leaf]; !ok {
		leaf = ""
		var root string
		for id, n := range g.Mapping {
			isRoot := n.Parent == nil || *n.Parent == ""
			if !isRoot {
				_, hasParent := g.Mapping[*n.Parent]
				isRoot = !hasParent
			}
			if isRoot {
				if root == "" || id < root { // deterministic when several
					root = id
				}
			}
		}
		for id := root; id != ""; {
			leaf = id
			ch := g.Mapping[id].Children
			id = ""
			if len(ch) > 0 {
				id = ch[len(ch)-1]
			}
		}
	}
	var ids []string
	seen := map[string]bool{}
	for id := leaf; id != "" && !seen[id]; {
		n, ok := g.Mapping[id]
		if !ok {
			break
		}
		seen[id] = true
		ids = append(ids, id)
		if n.Parent == nil {
			break
		}
		id = *n.Parent
	}
	slices.Reverse(ids)
	return ids
}

// convert keeps the user's and the assistant's visible words; system and
// hidden messages (custom instructions, context the model was given) are
// dropped, and what is not text is named.
func (m *gptMessage) convert() (Message, bool) {
	if hidden, _ := m.Metadata["is_visually_hidden_from_conversation"].(bool); hidden {
		return Message{}, false
	}
	out := Message{ID: m.ID}
	if m.CreateTime != nil {
		out.At = epoch(*m.CreateTime)
	}
	switch m.Author.Role {
	case "user":
		out.Role = "user"
	case "assistant":
		out.Role = "assistant"
	case "tool":
		// Code-interpreter output, browsing results, a generated image:
		// shown on the assistant's side, named only.
		out.Role = "assistant"
		what := "output of " + cmp.Or(m.Author.Name, "a tool")
		if m.Content.ContentType == "multimodal_text" && len(m.Content.Parts) > 0 {
			what = "image from " + cmp.Or(m.Author.Name, "a tool")
		}
		out.Extras = []string{what + " (not imported)"}
		return out, true
	default:
		return Message{}, false
	}
	var text []string
	switch ct := m.Content.ContentType; ct {
	case "text", "multimodal_text", "":
		for _, p := range m.Content.Parts {
			var s string
			if json.Unmarshal(p, &s) == nil {
				if strings.TrimSpace(s) != "" {
					text = append(text, s)
				}
				continue
			}
			var obj struct {
				ContentType string `json:"content_type"`
				Text        string `json:"text"`
			}
			if json.Unmarshal(p, &obj) == nil {
				switch {
				case obj.ContentType == "audio_transcription" && obj.Text != "":
					text = append(text, obj.Text)
				case strings.Contains(obj.ContentType, "image"):
					out.Extras = append(out.Extras, "image (not imported)")
				case strings.Contains(obj.ContentType, "audio"):
					out.Extras = append(out.Extras, "audio (not imported)")
				case obj.ContentType != "":
					out.Extras = append(out.Extras, obj.ContentType+" (not imported)")
				}
			}
		}
	case "code":
		// The assistant writing code for a tool (the code interpreter).
		out.Extras = append(out.Extras, fmt.Sprintf("code sent to %s, %d lines (not imported)",
			cmp.Or(m.Recipient, "a tool"), strings.Count(strings.TrimRight(m.Content.Text, "\n"), "\n")+1))
	case "user_editable_context", "model_editable_context", "system_error":
		return Message{}, false
	case "thoughts", "reasoning_recap":
		return Message{}, false // the model's hidden reasoning, not its answer
	default:
		out.Extras = append(out.Extras, ct+" (not imported)")
	}
	if m.Author.Role == "assistant" && m.Recipient != "" && m.Recipient != "all" && m.Content.ContentType != "code" {
		out.Extras = append(out.Extras, "call to "+m.Recipient+" (not imported)")
		text = nil
	}
	out.Text = strings.Join(text, "\n\n")
	return out, out.hasText()
}

// epoch reads ChatGPT's seconds since 1970 with a fraction.
func epoch(sec float64) time.Time {
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC().Truncate(time.Second)
}
