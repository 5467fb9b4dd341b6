package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// sources: a workspace whose only notes are a source folder of ws-M's
// 10,000 logs (agent memory sources add), indexed within the budget of the
// workspace itself: timed against ws-M's own full and no-change reindex.
func (b *bench) sources(wsM string) error {
	if !b.only["source"] {
		return nil
	}
	vault := filepath.Join(b.work, "vault-M")
	ws := filepath.Join(b.work, "ws-src")
	if _, err := os.Stat(vault); err != nil {
		note("building the source folder vault-M (ws-M's logs, with an .obsidian/ folder)")
		if err := run("cp", "-R", filepath.Join(wsM, "logs"), vault+".tmp"); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(vault+".tmp", ".obsidian"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(vault+".tmp", ".obsidian", "app.json"), []byte("{}\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(vault+".tmp", vault); err != nil {
			return err
		}
	}
	os.RemoveAll(ws)
	if err := run(b.agent, "-q", "--home", ws, "init"); err != nil {
		return err
	}
	if err := run(b.agent, "-q", "--home", ws, "memory", "sources", "add", "vault", vault); err != nil {
		return err
	}
	// The floor is ws-M itself, the same notes as a workspace's logs, timed
	// in the same run: a source must cost what the workspace costs.
	note("full reindex, ws-M's logs as a source, against ws-M (%d runs each)", b.runs)
	ours := cmd{argv: []string{b.agent, "-q", "--home", ws, "memory", "reindex", "--full"}}
	own := cmd{argv: []string{b.agent, "-q", "--home", wsM, "memory", "reindex", "--full"}}
	o, f, err := b.pair(ours, own, b.runs)
	if err != nil {
		return err
	}
	b.add("full reindex, ws-M's 10,000 logs as a source folder (floor: ws-M's own full reindex)", o.median, f.median, "≤ 1.1×")
	note("no-change reindex, ws-M's logs as a source, against ws-M (%d runs each)", 3*b.runs)
	ours = cmd{argv: []string{b.agent, "-q", "--home", ws, "memory", "reindex"}}
	own = cmd{argv: []string{b.agent, "-q", "--home", wsM, "memory", "reindex"}}
	for _, c := range []cmd{ours, own} {
		if _, err := c.time(); err != nil { // settle, as noChange does
			return err
		}
	}
	o, f, err = b.pair(ours, own, 3*b.runs)
	if err != nil {
		return err
	}
	b.add("no-change reindex, ws-M's 10,000 logs as a source folder (floor: ws-M's own)", o.median, f.median, "≤ 1.1×")
	find := cmd{argv: []string{"find", filepath.Join(ws, "MEMORY.md"), vault, "-name", ".*", "-prune", "-o", "-name", "*.md", "-printf", "%s %T@\n"}}
	o, f, err = b.pair(ours, find, 3*b.runs)
	if err != nil {
		return err
	}
	b.add("no-change reindex, ws-M's 10,000 logs as a source folder (floor: find)", o.median, f.median, "≤ 1.5×")
	return nil
}

// imports: a 1,000-conversation ChatGPT export (conversations.json, 10
// messages each) imported into a fresh workspace. Its floor is writing the
// same conversations' text as 1,000 files (cp of an unpacked copy).
func (b *bench) imports() error {
	if !b.only["import"] {
		return nil
	}
	export := filepath.Join(b.work, "chatgpt-1000.json")
	if err := writeChatGPTExport(export, 1000, 10); err != nil {
		return err
	}
	ws := filepath.Join(b.work, "ws-import")
	reset := func() {
		os.RemoveAll(ws)
		if err := run(b.agent, "-q", "--home", ws, "init"); err != nil {
			fail(err)
		}
	}
	note("import of a 1,000-conversation ChatGPT export (%d runs each)", b.runs)
	ours := cmd{argv: []string{b.agent, "-q", "--home", ws, "import", "chatgpt", export}, before: reset}
	// The floor: copy the files the import writes (from the first run),
	// which is the file-writing part of the work without reading the export.
	if _, err := ours.time(); err != nil {
		return err
	}
	written := filepath.Join(b.work, "imports-written")
	os.RemoveAll(written)
	if err := run("cp", "-R", filepath.Join(ws, "imports"), written); err != nil {
		return err
	}
	dst := filepath.Join(b.work, "imports-copy")
	floor := cmd{argv: []string{"cp", "-R", written, dst}, before: func() { os.RemoveAll(dst) }}
	o, f, err := b.pair(ours, floor, b.runs)
	if err != nil {
		return err
	}
	b.add("import chatgpt, 1,000 conversations × 10 messages (fresh workspace)", o.median, f.median, "≤ 5 s")
	return nil
}

// writeChatGPTExport writes n conversations of m messages each in the
// export's shape (mapping, current_node, parts), each with an abandoned
// branch at its first answer so the path is really followed.
func writeChatGPTExport(path string, n, m int) error {
	words := strings.Fields("the a garden trip Lisbon flight budget sourdough starter report churn board deck window seat " +
		"hotel museum tram bakery recipe flour water salt oven knead proof crumb crust river heron kingfisher otter")
	text := func(seed, k int) string {
		var b strings.Builder
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(seed*7+i*13)%len(words)])
		}
		return b.String() + "."
	}
	type msg struct {
		ID     string `json:"id"`
		Author struct {
			Role string `json:"role"`
		} `json:"author"`
		CreateTime float64 `json:"create_time"`
		Content    struct {
			ContentType string   `json:"content_type"`
			Parts       []string `json:"parts"`
		} `json:"content"`
		Metadata  map[string]any `json:"metadata"`
		Recipient string         `json:"recipient"`
	}
	type node struct {
		ID       string   `json:"id"`
		Message  *msg     `json:"message"`
		Parent   *string  `json:"parent"`
		Children []string `json:"children"`
	}
	type conv struct {
		ID          string          `json:"id"`
		Title       string          `json:"title"`
		CreateTime  float64         `json:"create_time"`
		UpdateTime  float64         `json:"update_time"`
		CurrentNode string          `json:"current_node"`
		Mapping     map[string]node `json:"mapping"`
	}
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	convs := make([]conv, n)
	for c := range n {
		at := start.Add(time.Duration(c) * 7 * time.Hour)
		cv := conv{ID: fmt.Sprintf("conv-%06d-0000-4000-8000-000000000000", c), Title: "Conversation " + text(c, 4),
			CreateTime: float64(at.Unix()), UpdateTime: float64(at.Unix() + 600), Mapping: map[string]node{}}
		cv.Mapping["root"] = node{ID: "root", Children: []string{"m0"}}
		parent := "root"
		for i := range m {
			id := fmt.Sprintf("m%d", i)
			p := parent
			x := &msg{ID: id, CreateTime: float64(at.Unix() + int64(i*30)), Metadata: map[string]any{}, Recipient: "all"}
			x.Author.Role = map[bool]string{true: "user", false: "assistant"}[i%2 == 0]
			x.Content.ContentType = "text"
			x.Content.Parts = []string{text(c+i, 60+i%5*20)}
			nd := node{ID: id, Message: x, Parent: &p}
			if i+1 < m {
				nd.Children = []string{fmt.Sprintf("m%d", i+1)}
			}
			if i == 1 { // an abandoned regeneration of the first answer
				alt := &msg{ID: "alt", CreateTime: x.CreateTime, Metadata: map[string]any{}, Recipient: "all"}
				alt.Author.Role = "assistant"
				alt.Content.ContentType = "text"
				alt.Content.Parts = []string{"an abandoned answer"}
				cv.Mapping["alt"] = node{ID: "alt", Message: alt, Parent: &p}
				r := cv.Mapping[p]
				r.Children = append([]string{"alt"}, r.Children...)
				cv.Mapping[p] = r
			}
			cv.Mapping[id] = nd
			parent = id
		}
		cv.CurrentNode = parent
		convs[c] = cv
	}
	data, err := json.Marshal(convs)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
