package importer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The ChatGPT export's conversations.json, as the projects that read it
// describe it: an array of conversations, each a tree of message nodes in
// "mapping" keyed by id (every edit or regeneration is a branch), with
// "current_node" the leaf the user last saw. Only what the import uses is
// declared, and only the words, times, ids and roles strictly (flex.go).
type gptConversation struct {
	ID             text                `json:"id"`
	ConversationID text                `json:"conversation_id"`
	Title          loose               `json:"title"`
	CreateTime     stamp               `json:"create_time"`
	UpdateTime     looseStamp          `json:"update_time"`
	Mapping        map[string]*gptNode `json:"mapping"`
	CurrentNode    loose               `json:"current_node"`
}

type gptNode struct {
	Message  *gptMessage `json:"message"`
	Parent   loose       `json:"parent"`
	Children looseList   `json:"children"`
}

type gptMessage struct {
	ID     text `json:"id"`
	Author struct {
		Role text  `json:"role"`
		Name loose `json:"name"`
	} `json:"author"`
	CreateTime stamp       `json:"create_time"`
	Content    gptContent  `json:"content"`
	Metadata   looseObject `json:"metadata"`
	Recipient  loose       `json:"recipient"`
}

type gptContent struct {
	ContentType loose           `json:"content_type"`
	Parts       json.RawMessage `json:"parts"` // a list of strings and objects; one string in some exports
	Text        loose           `json:"text"`
}

// readChatGPT converts one conversation of the export; t counts its
// messages by kind.
func readChatGPT(r json.RawMessage, t *tally) (Conversation, []string, error) {
	var g gptConversation
	if err := json.Unmarshal(r, &g); err != nil {
		return named(r, "id", "title"), nil, inMessage(err, r, "mapping", func(raw json.RawMessage) error {
			var n gptNode
			return json.Unmarshal(raw, &n)
		})
	}
	return g.convert(t)
}

// inMessage says which message a field that did not decode is in: err's
// field is under list (mapping or chat_messages), so each of its entries
// is decoded alone (decode) until one fails the same way. Only an error
// pays for this.
func inMessage(err error, r json.RawMessage, list string, decode func(json.RawMessage) error) error {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) || !strings.HasPrefix(typ.Field, list+".") {
		return err
	}
	var o looseObject
	json.Unmarshal(r, &o)
	var entries []json.RawMessage
	var names []string
	var byID map[string]json.RawMessage
	if json.Unmarshal(o[list], &byID) == nil {
		for id := range byID {
			names = append(names, id)
		}
		slices.Sort(names)
		for _, id := range names {
			entries = append(entries, byID[id])
		}
	} else if json.Unmarshal(o[list], &entries) == nil {
		for i := range entries {
			names = append(names, strconv.Itoa(i+1))
		}
	}
	for i, e := range entries {
		var inner *json.UnmarshalTypeError
		if errors.As(decode(e), &inner) {
			inner.Field = strings.TrimPrefix(strings.TrimPrefix(inner.Field, "message."), "chat_messages.")
			return &located{where: "message " + names[i], err: inner}
		}
	}
	return err
}

// located is an error in one message of a conversation.
type located struct {
	where string
	err   error
}

func (l *located) Error() string { return l.where + ": " + l.err.Error() }
func (l *located) Unwrap() error { return l.err }

// named is a conversation that did not decode, with its id and title read
// on their own, for the error that names it.
func named(r json.RawMessage, id, title string) Conversation {
	var o looseObject
	json.Unmarshal(r, &o)
	return Conversation{ID: o.str(id), Title: o.str(title)}
}

func (g *gptConversation) convert(t *tally) (Conversation, []string, error) {
	c := Conversation{ID: string(cmp.Or(g.ID, g.ConversationID)), Title: string(g.Title), Origin: ChatGPT}
	if c.ID == "" {
		return c, nil, fmt.Errorf("no id")
	}
	if g.Mapping == nil {
		return c, nil, fmt.Errorf("no mapping (not a ChatGPT export?)")
	}
	ids, notes := g.path()
	for _, id := range ids {
		n := g.Mapping[id]
		if n.Message == nil {
			continue
		}
		m, ok := n.Message.convert(t)
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
	case !g.CreateTime.IsZero():
		c.Started = g.CreateTime.Time
	case len(c.Messages) > 0 && !c.Messages[0].At.IsZero():
		c.Started = c.Messages[0].At
	case !g.UpdateTime.IsZero():
		c.Started = g.UpdateTime.Time
	}
	if c.Started.IsZero() && len(c.Messages) > 0 {
		return c, notes, fmt.Errorf("no time: create_time is missing and so are its messages' times")
	}
	return c, notes, nil
}

// path is the branch the user ended on, from the root down: current_node
// and its parents. The tree is taken as it comes: a node's parent is its
// "parent", or else the node listing it among its "children", so trees
// linked one way only are whole. Without a usable current_node the leaf is
// the newest one. A loop or a link to a node not in the export ends the
// walk there and is said in the notes, never followed forever.
func (g *gptConversation) path() ([]string, []string) {
	var notes []string
	keys := make([]string, 0, len(g.Mapping))
	for id, n := range g.Mapping {
		if n == nil {
			n = &gptNode{}
			g.Mapping[id] = n
		}
		keys = append(keys, id)
	}
	slices.Sort(keys) // the same export reads the same way every time
	listedBy := map[string]string{}
	hasChild := map[string]bool{}
	var missing []string
	for _, id := range keys {
		for _, raw := range g.Mapping[id].Children {
			var ch loose
			ch.UnmarshalJSON(raw)
			c := string(ch)
			if _, ok := g.Mapping[c]; !ok {
				if c != "" {
					missing = append(missing, c)
				}
				continue
			}
			if _, ok := listedBy[c]; !ok {
				listedBy[c] = id
			}
		}
	}
	parent := func(id string) string {
		p := string(g.Mapping[id].Parent)
		if _, ok := g.Mapping[p]; ok && p != id {
			return p
		}
		if p != "" {
			if _, ok := listedBy[id]; !ok {
				missing = append(missing, p)
			}
		}
		return listedBy[id]
	}
	parents := make(map[string]string, len(keys))
	for _, id := range keys {
		parents[id] = parent(id)
		if p := parents[id]; p != "" {
			hasChild[p] = true
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing) // Compact blanks the tail it leaves: use what it returns
		notes = append(notes, fmt.Sprintf("links to %d message(s) not in the export (%s); read without them", len(missing), strings.Join(firstN(missing, 3), ", ")))
	}
	leaf := string(g.CurrentNode)
	if _, ok := g.Mapping[leaf]; !ok {
		leaf = g.newestLeaf(keys, hasChild)
	}
	var ids []string
	seen := map[string]bool{}
	for id := leaf; id != ""; id = parents[id] {
		if seen[id] {
			notes = append(notes, fmt.Sprintf("its messages' links loop (at %s); read from there on", id))
			break
		}
		seen[id] = true
		ids = append(ids, id)
	}
	slices.Reverse(ids)
	return ids, notes
}

// newestLeaf is the leaf with the newest message (a node with no child),
// or, when no leaf has a time, the last of them; in a tree that is all
// loop, the newest node.
func (g *gptConversation) newestLeaf(keys []string, hasChild map[string]bool) string {
	var best string
	var bestAt int64 = -1
	pick := func(leavesOnly bool) {
		for _, id := range keys {
			if leavesOnly && hasChild[id] {
				continue
			}
			var at int64
			if m := g.Mapping[id].Message; m != nil && !m.CreateTime.IsZero() {
				at = m.CreateTime.Unix()
			}
			if at >= bestAt {
				best, bestAt = id, at
			}
		}
	}
	pick(true)
	if best == "" {
		pick(false)
	}
	return best
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}

// convert keeps the user's and the assistant's visible words; system and
// hidden messages (custom instructions, context the model was given) are
// left out and counted, and what is not text is named.
func (m *gptMessage) convert(t *tally) (Message, bool) {
	if m.Metadata.flag("is_visually_hidden_from_conversation") {
		t.leftOut("hidden context")
		return Message{}, false
	}
	out := Message{ID: string(m.ID), At: m.CreateTime.Time}
	ct := string(m.Content.ContentType)
	switch m.Author.Role {
	case "user":
		out.Role = "user"
	case "assistant":
		out.Role = "assistant"
	case "tool":
		// Code-interpreter output, browsing results, a generated image:
		// shown on the assistant's side, named only.
		out.Role = "assistant"
		what := "output of " + cmp.Or(string(m.Author.Name), "a tool")
		kind := "tool output"
		if ct == "multimodal_text" && len(parts(m.Content.Parts)) > 0 {
			what, kind = "image from "+cmp.Or(string(m.Author.Name), "a tool"), "tool image"
		}
		t.named(kind)
		out.Extras = []string{what + " (not imported)"}
		return out, true
	case "system":
		t.leftOut("system")
		return Message{}, false
	default:
		t.leftOut("from " + cmp.Or(string(m.Author.Role), "no one"))
		return Message{}, false
	}
	uploads := m.attachments()
	var words []string
	switch ct {
	case "text", "multimodal_text", "":
		for _, p := range parts(m.Content.Parts) {
			var s text
			if p[0] != '{' && s.UnmarshalJSON(p) == nil {
				if strings.TrimSpace(string(s)) != "" {
					words = append(words, string(s))
					t.text("text")
				}
				continue
			}
			var obj looseObject
			if json.Unmarshal(p, &obj) != nil {
				continue
			}
			pct := obj.str("content_type")
			switch {
			case pct == "audio_transcription" && strings.TrimSpace(obj.str("text")) != "":
				words = append(words, obj.str("text"))
				t.text("voice transcript")
			case strings.Contains(pct, "image"):
				name := uploads.take(obj.str("asset_pointer"))
				out.Extras = append(out.Extras, strings.TrimSpace("image "+name)+" (not imported)")
				t.named("image")
			case strings.Contains(pct, "audio"):
				out.Extras = append(out.Extras, "audio (not imported)")
				t.named("audio")
			case pct != "":
				out.Extras = append(out.Extras, pct+" (not imported)")
				t.named(pct)
			default:
				t.leftOut("unknown part")
			}
		}
	case "code":
		// The assistant writing code for a tool (the code interpreter).
		out.Extras = append(out.Extras, fmt.Sprintf("code sent to %s, %d lines (not imported)",
			cmp.Or(string(m.Recipient), "a tool"), strings.Count(strings.TrimRight(string(m.Content.Text), "\n"), "\n")+1))
		t.named("code")
	case "user_editable_context", "model_editable_context":
		t.leftOut("custom instructions and memory")
		return Message{}, false
	case "system_error":
		t.leftOut("error notice")
		return Message{}, false
	case "thoughts", "reasoning_recap":
		t.leftOut("hidden reasoning") // the model's, not its answer
		return Message{}, false
	default:
		out.Extras = append(out.Extras, ct+" (not imported)")
		t.named(ct)
	}
	for _, u := range uploads {
		if !u.taken {
			out.Extras = append(out.Extras, u.String()+" (not imported)")
			t.named("attachment")
		}
	}
	if m.Author.Role == "assistant" && m.Recipient != "" && m.Recipient != "all" && ct != "code" {
		out.Extras = append(out.Extras, "call to "+string(m.Recipient)+" (not imported)")
		t.named("tool call")
		words = nil
	}
	out.Text = strings.Join(words, "\n\n")
	if !out.hasText() {
		t.leftOut("empty")
	}
	return out, out.hasText()
}

// parts reads content.parts: a list, or one string standing alone.
func parts(raw json.RawMessage) []json.RawMessage {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		return []json.RawMessage{raw}
	}
	var l looseList
	l.UnmarshalJSON(raw)
	return l
}

// upload is a file the user gave ChatGPT (metadata.attachments).
type upload struct {
	id, name string
	size     int64
	taken    bool // named with the image part it is
}

func (u *upload) String() string {
	s := "attachment " + cmp.Or(u.name, "(unnamed)")
	if u.size > 0 {
		s += fmt.Sprintf(", %d bytes", u.size)
	}
	return s
}

type uploads []*upload

func (m *gptMessage) attachments() uploads {
	var l looseList
	if raw, ok := m.Metadata["attachments"]; ok {
		l.UnmarshalJSON(raw)
	}
	var out uploads
	for _, raw := range l {
		var o looseObject
		if json.Unmarshal(raw, &o) != nil {
			continue
		}
		out = append(out, &upload{id: o.str("id"), name: o.str("name"), size: int64(o.num("size"))})
	}
	return out
}

// take returns the name of the upload an image part points to
// (file-service://ID), marking it named.
func (us uploads) take(pointer string) string {
	for _, u := range us {
		if u.id != "" && !u.taken && strings.HasSuffix(pointer, u.id) {
			u.taken = true
			return u.name
		}
	}
	return ""
}
