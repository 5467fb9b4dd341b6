package distill

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The JSON the model is asked for, through Ollama's format (a JSON schema):
// digest items and, for a month, durable facts, each with the citation and
// the passage it rests on. The code checks both; the schema only shapes.
type reply struct {
	Items []replyItem `json:"items"`
	Facts []replyFact `json:"facts"`
}

type replyItem struct {
	Text   string `json:"text"`
	Source string `json:"source"`
	Quote  string `json:"quote"`
}

type replyFact struct {
	Action   string `json:"action"` // "add" or "supersede"
	Section  string `json:"section"`
	Text     string `json:"text"`
	Source   string `json:"source"`
	Quote    string `json:"quote"`
	Replaces string `json:"replaces"` // the MEMORY.md line a supersession replaces
}

const itemSchema = `{"type":"object","properties":{
 "text":{"type":"string","description":"one short sentence"},
 "source":{"type":"string","description":"path:start-end of the lines it came from, e.g. logs/2026-11-20.md:14-16"},
 "quote":{"type":"string","description":"words copied exactly from those lines"}},
 "required":["text","source","quote"]}`

const factSchema = `{"type":"object","properties":{
 "action":{"type":"string","enum":["add","supersede"]},
 "section":{"type":"string","description":"the ## section of MEMORY.md"},
 "text":{"type":"string","description":"the durable fact, one sentence"},
 "source":{"type":"string"},
 "quote":{"type":"string"},
 "replaces":{"type":"string","description":"for supersede: the MEMORY.md line the new fact replaces"}},
 "required":["action","section","text","source","quote"]}`

// Schema is the format sent with a request for a period of kind.
func Schema(kind string) json.RawMessage {
	if kind == Month {
		return json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":` + itemSchema +
			`},"facts":{"type":"array","items":` + factSchema + `}},"required":["items","facts"]}`)
	}
	return json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":` + itemSchema + `}},"required":["items"]}`)
}

const systemPrompt = `You distill a person's daily notes into a digest. You answer only with JSON that fits the given schema.
Each item is one short sentence about something that happened, was decided or learned.
Each item cites its source as PATH:START-END using the path and the line numbers shown before each line ("14| text" is line 14), and quotes a few words copied exactly from those lines.
Never invent anything that is not in the notes. Leave out small talk.`

const factsPrompt = `
Also list durable facts about the person worth keeping for years (where they live, health, family, lasting preferences), each with the ## section of MEMORY.md it belongs to, its source and quote.
A fact that contradicts a line of the current MEMORY.md below is a "supersede" that names that line in "replaces"; anything else is an "add". Never remove a fact.`

// prompt is the user message for one chunk. memory is the current
// MEMORY.md (month only), so the model can name what a new fact replaces.
func prompt(p Period, chunk string, part, parts int, memory string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Notes of %s %s (%s to %s), part %d of %d:\n\n%s", p.Kind, p.Key, p.Date(), p.Last(), part, parts, chunk)
	if p.Kind == Month {
		b.WriteString(factsPrompt)
		fmt.Fprintf(&b, "\n\nCurrent MEMORY.md:\n%s", memory)
	}
	return b.String()
}

// parseReply decodes the model's JSON. Anything that is not one JSON object
// of the expected shape is an error: the whole reply counts as invalid.
func parseReply(s string) (reply, error) {
	var r reply
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&r); err != nil {
		return reply{}, fmt.Errorf("reply is not the JSON asked for: %w", err)
	}
	if dec.More() {
		return reply{}, fmt.Errorf("reply has text after its JSON")
	}
	return r, nil
}
