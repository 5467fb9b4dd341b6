package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/ollama/ollama/api"
)

// The cache rule, checked where it matters: in the prompt a chat template
// makes of each request. The model keeps the prompt it evaluated (and the
// reply it generated) and reuses the longest common prefix with the next;
// what a template prints where decides how long that is. The templates are
// ours, in the shapes of llama3.x, qwen2.x and the tiny model's in-place
// one (core/ollamatest/templates), rendered as Ollama v0.9.6 renders them:
// every system message joined into .System, consecutive messages of one
// role merged.

// render is Ollama's template.Execute for a chat request (collate, then the
// template with System, Messages and Tools).
func render(t *testing.T, tmpl *template.Template, req api.ChatRequest) string {
	t.Helper()
	var system []string
	var msgs []*api.Message
	for i := range req.Messages {
		m := req.Messages[i]
		if m.Role == "system" {
			system = append(system, m.Content)
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == m.Role && m.Role != "tool" {
			merged := *msgs[n-1]
			merged.Content += "\n\n" + m.Content
			msgs[n-1] = &merged
			continue
		}
		msgs = append(msgs, &m)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]any{"System": strings.Join(system, "\n\n"), "Messages": msgs, "Tools": req.Tools, "Response": ""}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func loadTemplate(t *testing.T, name string) *template.Template {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("ollamatest", "templates", name+".tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	// As tinymodel writes it into a Modelfile: without the file's last newline.
	return template.Must(template.New(name).Parse(strings.TrimRight(string(b), "\n")))
}

// templateShapes are the templates and where each lets the next request's
// prompt part from the last one's (with its reply): "reply", nowhere before
// the reply's end (the whole previous prompt and the reply are reused);
// "last user", at the previous request's last user message, which llama3.x
// prints again without the tool list in front of it.
var templateShapes = []struct{ name, parts string }{
	{"inplace", "reply"},
	{"qwen2", "reply"},
	{"llama3", "last user"},
}

// A conversation of one process per turn, as `agent chat --continue` runs
// it, with recall that changes every turn and the time of day moving:
// under every template, the next prompt shares with the previous prompt and
// its reply everything the template prints the same, and the share a
// later turn evaluates again is reported against the template's floor (the
// new message with its context, plus what the template itself prints
// again).
func TestTemplatesKeepThePrefix(t *testing.T) {
	reqs := conversationAcrossProcesses(t)
	for _, shape := range templateShapes {
		tmpl := loadTemplate(t, shape.name)
		var fresh, total, floor int
		for i := 1; i < len(reqs); i++ {
			prev, next := render(t, tmpl, reqs[i-1])+cacheReply, render(t, tmpl, reqs[i])
			shared := sharedPrefix(prev, next)
			// Where the template lets them part: past the reply, or at the
			// previous request's last user message.
			want := len(prev)
			if shape.parts == "last user" {
				last := reqs[i-1]
				last.Messages = last.Messages[:len(last.Messages)-1]
				want = sharedPrefix(prev, render(t, tmpl, last))
			}
			if shared < want {
				t.Errorf("%s: turn %d shares %d bytes of its prompt with the last one and its reply, want %d: they part at %q",
					shape.name, i+1, shared, want, clipTest(next[shared:]))
			}
			fresh += len(next) - shared
			total += len(next)
			floor += len(next) - want
		}
		t.Logf("%s: later turns evaluate %.3f of their prompt again (the template's floor %.3f)", shape.name, float64(fresh)/float64(total), float64(floor)/float64(total))
	}
}

// Before issue 24 each turn's context was a system message: every template
// that joins system messages at the top then parts at the very first block.
// The check above would fail on such a request, as this shows.
func TestTemplatesPartAtTheTopOnALateSystemMessage(t *testing.T) {
	req := api.ChatRequest{Messages: []api.Message{{Role: "system", Content: "rules"}, {Role: "system", Content: "[sent 09:30]"}, {Role: "user", Content: "hello there"}}}
	next := api.ChatRequest{Messages: append(append([]api.Message{}, req.Messages...),
		api.Message{Role: "assistant", Content: cacheReply}, api.Message{Role: "system", Content: "[sent 09:37]"}, api.Message{Role: "user", Content: "and?"})}
	for _, name := range []string{"llama3", "qwen2"} {
		tmpl := loadTemplate(t, name)
		prev, n := render(t, tmpl, req)+cacheReply, render(t, tmpl, next)
		if shared := sharedPrefix(prev, n); shared >= strings.Index(prev, "hello there") {
			t.Errorf("%s: a late system message did not change the top: the prompts share %d bytes, past the first user message", name, shared)
		}
	}
}
