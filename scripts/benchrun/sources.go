package main

import (
	"archive/zip"
	"bufio"
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
	// The exports are written by a child benchrun: a child's peak RSS
	// (getrusage) counts its parent's at the fork, so benchrun itself must
	// stay small for the figures to be the import's.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	export := filepath.Join(b.work, "chatgpt-1000.json")
	if err := run(self, "-gen", "plain", "-gen-out", export); err != nil {
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
	return b.oddImports(self, reset, ws)
}

// oddImports: exports as they really come (issue 35). A 10,000-conversation
// ChatGPT export with a mix of the odd shapes the importer reads (times as
// strings, trees linked one way only, loops, uploads, titles in other
// scripts, one unreadable conversation in 8), timed with its peak RSS; and
// a zip of a few hundred KB that inflates to 256 MiB of JSON (conversations
// padded with a field the import does not use), whose peak RSS shows the
// export is read a conversation at a time. Floor: the same cp as above,
// of what the odd export's import wrote.
func (b *bench) oddImports(self string, reset func(), ws string) error {
	export := filepath.Join(b.work, "chatgpt-odd-10000.json")
	if err := run(self, "-gen", "odd", "-gen-out", export); err != nil {
		return err
	}
	note("import of a 10,000-conversation ChatGPT export of odd shapes (%d runs each)", b.runs)
	ours := cmd{argv: []string{b.agent, "-q", "--home", ws, "import", "chatgpt", export}, before: reset}
	if _, err := ours.time(); err != nil {
		return err
	}
	written := filepath.Join(b.work, "imports-odd-written")
	os.RemoveAll(written)
	if err := run("cp", "-R", filepath.Join(ws, "imports"), written); err != nil {
		return err
	}
	dst := filepath.Join(b.work, "imports-odd-copy")
	floor := cmd{argv: []string{"cp", "-R", written, dst}, before: func() { os.RemoveAll(dst) }}
	o, f, err := b.pair(ours, floor, b.runs)
	if err != nil {
		return err
	}
	fi, _ := os.Stat(export)
	b.add(fmt.Sprintf("import chatgpt, 10,000 conversations × 10 messages, odd shapes, %s (fresh workspace; peak RSS %s)", mb(fi.Size()), mb(o.maxRSS<<10)), o.median, f.median, "≤ 50 s")

	bomb := filepath.Join(b.work, "chatgpt-256mib.zip")
	if err := run(self, "-gen", "bloated", "-gen-out", bomb); err != nil {
		return err
	}
	zi, _ := os.Stat(bomb)
	note("import of a %s zip holding 256 MiB of JSON (%d runs)", mb(zi.Size()), b.runs)
	ours = cmd{argv: []string{b.agent, "-q", "--home", ws, "import", "chatgpt", bomb}, before: reset}
	// Floor: inflating the same entry and nothing else.
	o, f, err = b.pair(ours, cmd{argv: []string{"unzip", "-p", bomb, "conversations.json"}}, b.runs)
	if err != nil {
		return err
	}
	b.add(fmt.Sprintf("import chatgpt, a %s zip inflating to 256 MiB of JSON (peak RSS %s)", mb(zi.Size()), mb(o.maxRSS<<10)), o.median, f.median, "peak RSS ≤ 100 MB")
	return nil
}

// generate writes the export named by what to out (benchrun -gen).
func generate(what, out string) error {
	switch what {
	case "plain":
		return writeChatGPTExport(out, 1000, 10)
	case "odd":
		if err := writeChatGPTExport(out, 10000, 10); err != nil {
			return err
		}
		return oddShapes(out)
	case "bloated":
		return writeBloatedZip(out, 256<<20)
	}
	return fmt.Errorf("-gen %q: plain, odd or bloated", what)
}

// oddShapes rewrites the export at path with a mix of the shapes real
// exports come in, by conversation number modulo 8.
func oddShapes(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var convs []map[string]any
	if err := json.Unmarshal(data, &convs); err != nil {
		return err
	}
	for i, c := range convs {
		mapping := c["mapping"].(map[string]any)
		node := func(id string) map[string]any { return mapping[id].(map[string]any) }
		switch i % 8 {
		case 1: // times as strings of seconds
			c["create_time"] = fmt.Sprintf("%.7f", c["create_time"].(float64)+0.6077936)
			c["update_time"] = fmt.Sprint(c["update_time"])
		case 2: // parent links only, no current_node
			for _, n := range mapping {
				delete(n.(map[string]any), "children")
			}
			delete(c, "current_node")
		case 3: // children links only
			for _, n := range mapping {
				delete(n.(map[string]any), "parent")
			}
		case 4: // a loop: the root's parent is the leaf
			node("root")["parent"] = c["current_node"]
		case 5: // an upload and an image on the first question
			m := node("m0")["message"].(map[string]any)
			m["metadata"] = map[string]any{"attachments": []any{map[string]any{"id": "file-A", "name": "input.txt", "size": 311}}}
			m["content"] = map[string]any{"content_type": "multimodal_text", "parts": []any{map[string]any{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-B"}, "What does this say?"}}
		case 6: // unreadable: a time that is an object
			c["create_time"] = map[string]any{"seconds": 1}
		case 7: // a title in another script
			c["title"] = fmt.Sprintf("版本历史 %d", i)
		}
	}
	out, err := json.Marshal(convs)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// writeBloatedZip writes a zip whose conversations.json inflates to size
// bytes: small conversations, each padded with 128 KiB of a field the
// import does not read (as moderation results and metadata pad real ones).
func writeBloatedZip(path string, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	w, err := zw.Create("conversations.json")
	if err != nil {
		return err
	}
	pad := strings.Repeat("x", 128<<10)
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString("[")
	n := 1
	for i := 0; n < size; i++ {
		if i > 0 {
			bw.WriteString(",")
		}
		c := fmt.Sprintf(`{"id":"bloat-%06d","title":"Padded %d","create_time":%d,"current_node":"u","moderation_results":[%q],`+
			`"mapping":{"u":{"id":"u","parent":null,"children":[],"message":{"id":"u","author":{"role":"user"},"create_time":%d,"content":{"content_type":"text","parts":["question %d"]}}}}}`,
			i, i, 1700000000+i*60, pad, 1700000000+i*60, i)
		bw.WriteString(c)
		n += len(c) + 1
	}
	bw.WriteString("]")
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
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
