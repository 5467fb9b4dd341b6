package importer

import (
	"archive/zip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"agent/core/statedb"
	"agent/index"
	"agent/memory"
)

// The fixtures are built from the export formats as the projects that read
// them document them (docs/cli-import.md): a ChatGPT export with a branched
// conversation (an edited question whose first branch was abandoned), an
// image, a code-interpreter call and its output, a hidden system message
// and an empty conversation; a Claude export with an attachment and its
// extracted text, a file, thinking, a tool call and result, an older
// message with text only, and an empty conversation.
const (
	gptFixture    = "testdata/chatgpt-conversations.json"
	claudeFixture = "testdata/claude-conversations.json"
)

// openDB is a real state.db with this package's schema, opened as core opens
// it (immediate write transactions).
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := statedb.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), true, []statedb.Set{{Component: "importer", Files: Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func read(t *testing.T, file, origin string) Parsed {
	t.Helper()
	p, err := ReadExport(file, origin)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func all(c Conversation) string {
	var b strings.Builder
	for _, m := range c.Messages {
		b.WriteString(m.Role + ": " + m.Text + " " + strings.Join(m.Extras, "; ") + "\n")
	}
	return b.String()
}

func TestChatGPTFollowsTheBranchTheUserEndedOn(t *testing.T) {
	p := read(t, gptFixture, ChatGPT)
	if len(p.Conversations) != 2 || p.Skipped != 1 {
		t.Fatalf("%d conversations, %d skipped; want 2 and the empty one skipped", len(p.Conversations), p.Skipped)
	}
	c := p.Conversations[0]
	if c.Title != "Lisbon trip planning" || !c.Started.Equal(time.Date(2024, 5, 1, 14, 32, 0, 0, time.UTC)) {
		t.Errorf("title %q, started %v", c.Title, c.Started)
	}
	got := all(c)
	if strings.Contains(got, "ABANDONED") {
		t.Errorf("the abandoned branch was imported:\n%s", got)
	}
	var roles []string
	for _, m := range c.Messages {
		roles = append(roles, m.Role)
	}
	// the hidden system message is dropped; the code call and its output
	// are one assistant turn, the answer after them another
	if want := []string{"user", "assistant", "user", "assistant", "assistant"}; !slices.Equal(roles, want) {
		t.Errorf("roles %v, want %v", roles, want)
	}
	for _, want := range []string{"image (not imported)", "code sent to python, 3 lines (not imported)", "output of python (not imported)", "You can afford 7 nights"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, never := range []string{"budget = 900", "print(", "file-service://"} {
		if strings.Contains(got, never) {
			t.Errorf("non-text part dumped (%q):\n%s", never, got)
		}
	}
}

func TestChatGPTBranchChoice(t *testing.T) {
	data, err := os.ReadFile(gptFixture)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		current   any
		abandoned bool
	}{
		{"a2old", true}, // the user ended on the first branch
		{nil, false},    // no current_node: the newest child at each fork
		{"gone", false}, // a current_node not in the mapping: the same
		{"u2old", true}, // ended on a question not yet answered
	} {
		raw[0]["current_node"] = tc.current
		b, _ := json.Marshal(raw[:1])
		file := filepath.Join(t.TempDir(), "conversations.json")
		os.WriteFile(file, b, 0o644)
		c := read(t, file, ChatGPT).Conversations[0]
		if got := strings.Contains(all(c), "ABANDONED"); got != tc.abandoned {
			t.Errorf("current_node %v: abandoned branch imported = %v, want %v\n%s", tc.current, got, tc.abandoned, all(c))
		}
		if !strings.Contains(all(c), "Which neighbourhood") {
			t.Errorf("current_node %v: the common start is missing", tc.current)
		}
	}
}

func TestClaudeAttachmentsAreNamedNotDumped(t *testing.T) {
	p := read(t, claudeFixture, Claude)
	if len(p.Conversations) != 1 || p.Skipped != 1 {
		t.Fatalf("%d conversations, %d skipped; want 1 and the empty one skipped", len(p.Conversations), p.Skipped)
	}
	c := p.Conversations[0]
	if len(c.Messages) != 3 || c.Messages[0].Role != "user" || c.Messages[1].Role != "assistant" || c.Messages[2].Text != "Thanks, put that in the board deck." {
		t.Fatalf("messages: %s", all(c))
	}
	got := all(c)
	for _, want := range []string{"attachment q2-report.pdf, 48213 bytes, 46 characters of text (not imported)", "file q2-chart.png (not imported)",
		"tool call analysis (not imported)", "tool result (not imported)", "churn at 4.2%"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, never := range []string{"CONFIDENTIAL", "SECRET REASONING", "TOOL OUTPUT"} {
		if strings.Contains(got, never) {
			t.Errorf("%q imported:\n%s", never, got)
		}
	}
	if !c.Started.Equal(time.Date(2024, 6, 10, 9, 15, 30, 0, time.UTC)) {
		t.Errorf("started %v", c.Started)
	}
}

func writeZip(t *testing.T, files map[string][]byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "export.zip")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, data := range files {
		w, _ := zw.Create(name)
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return file
}

func TestReadExportFromTheZip(t *testing.T) {
	data, _ := os.ReadFile(gptFixture)
	file := writeZip(t, map[string][]byte{"chat.html": []byte("<html>"), "user.json": []byte("{}"), "conversations.json": data,
		"deep/conversations.json": []byte("[]")})
	if p := read(t, file, ChatGPT); len(p.Conversations) != 2 {
		t.Errorf("from the zip: %d conversations", len(p.Conversations))
	}
	if _, err := ReadExport(writeZip(t, map[string][]byte{"chat.html": []byte("<html>")}), ChatGPT); !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), "without conversations.json") {
		t.Errorf("a zip without conversations.json: %v", err)
	}
	whole, _ := os.ReadFile(file)
	cut := filepath.Join(t.TempDir(), "cut.zip")
	os.WriteFile(cut, whole[:len(whole)/2], 0o644)
	if _, err := ReadExport(cut, ChatGPT); !errors.Is(err, ErrNotExport) {
		t.Errorf("a truncated zip: %v", err)
	}
}

func TestBadInputIsAClearError(t *testing.T) {
	gpt, _ := os.ReadFile(gptFixture)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, origin, data string
		kind               error
		says               string
	}{
		{"not json", ChatGPT, "name,email\nme,me@example.com\n", ErrNotExport, "is not JSON"},
		{"truncated", ChatGPT, string(gpt[:len(gpt)/2]), ErrNotExport, "truncated or invalid JSON"},
		{"an object", Claude, `{"uuid": "x"}`, ErrNotExport, "not a Claude export"},
		{"other json", ChatGPT, `[{"name": "x"}]`, ErrNotExport, "neither mapping nor chat_messages"},
		{"the other export", Claude, string(gpt), ErrNotExport, "is a ChatGPT export, not Claude's (run: agent import chatgpt"},
		{"a bad time", Claude, `[{"uuid": "u", "created_at": "yesterday", "chat_messages": [{"uuid": "m", "sender": "human", "text": "hi"}]}]`, ErrNotExport, `not one conversation could be read (conversation 1 (u): created_at is "yesterday", expected a time`},
		{"no id", ChatGPT, `[{"title": "t", "mapping": {}}]`, ErrNotExport, "no id"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		os.WriteFile(file, []byte(tc.data), 0o644)
		_, err := ReadExport(file, tc.origin)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.kind, tc.says)
		}
	}
	if _, err := ReadExport(filepath.Join(dir, "missing.json"), ChatGPT); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing file: %v", err)
	}
	// An empty export is not an error: there is nothing to import.
	os.WriteFile(filepath.Join(dir, "empty.json"), []byte("[]"), 0o644)
	if p, err := ReadExport(filepath.Join(dir, "empty.json"), Claude); err != nil || len(p.Conversations) != 0 {
		t.Errorf("an empty export: %v, %v", p, err)
	}
}

// files lists the workspace-relative paths of every file under imports/.
func files(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(home, memory.ImportsDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(home, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

var opts = Options{Source: "conversations.json", Location: time.UTC, Now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}

func TestImportReimportAndUndo(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	os.WriteFile(filepath.Join(home, "MEMORY.md"), []byte("# Memory\n"), 0o644)
	p := read(t, gptFixture, ChatGPT)

	dry := opts
	dry.DryRun = true
	res, err := Import(ctx, db, home, p, dry)
	if err != nil || len(res.Files) != 2 || res.Messages != 7 || res.ID != 0 {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if f := files(t, home); len(f) != 0 {
		t.Fatalf("a dry run wrote %v", f)
	}

	first, err := Import(ctx, db, home, p, opts)
	if err != nil || first.ID != 1 || len(first.Files) != 2 {
		t.Fatalf("import: %+v, %v", first, err)
	}
	want := []string{"imports/chatgpt/2023/2023-11-14-2213-sourdough-starter-65550000.md", "imports/chatgpt/2024/2024-05-01-1432-lisbon-trip-planning-6632a1b0.md"}
	if got := files(t, home); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	lisbon, _ := os.ReadFile(filepath.Join(home, want[1]))
	for _, s := range []string{"date: 2024-05-01\n", "origin: chatgpt\n", "# 2024-05-01 14:32 · ChatGPT · Lisbon trip planning\n", "## You · 2024-05-01 14:32\n",
		"## ChatGPT · 2024-05-01 14:32\n", "\\# Not a heading of ours\n"} {
		if !strings.Contains(string(lisbon), s) {
			t.Errorf("the file lacks %q:\n%s", s, lisbon)
		}
	}
	if memory, _ := os.ReadFile(filepath.Join(home, "MEMORY.md")); string(memory) != "# Memory\n" {
		t.Errorf("MEMORY.md changed: %q", memory)
	}

	// The same export again: nothing new.
	again, err := Import(ctx, db, home, p, opts)
	if err != nil || again.ID != 0 || len(again.Files) != 0 || again.Already != 2 {
		t.Fatalf("re-import: %+v, %v", again, err)
	}

	// A later export holding it, with one conversation continued: only the
	// new messages are written, in a file of their own.
	later := read(t, gptFixture, ChatGPT)
	c := &later.Conversations[1]
	c.Messages = append(c.Messages, Message{ID: "b3", Role: "user", At: c.Started.Add(time.Hour), Text: "It smells of bread now."})
	second, err := Import(ctx, db, home, later, opts)
	if err != nil || second.ID != 2 || len(second.Files) != 1 || second.Messages != 1 || !second.Files[0].Continued || second.Already != 1 {
		t.Fatalf("later import: %+v, %v", second, err)
	}
	part2, _ := os.ReadFile(filepath.Join(home, second.Files[0].Path))
	if !strings.Contains(string(part2), "(continued, part 2)") || !strings.Contains(string(part2), "smells of bread") || strings.Contains(string(part2), "nail polish") {
		t.Errorf("the continuation holds:\n%s", part2)
	}

	// The user edits one imported file and writes one of their own there.
	edited := filepath.Join(home, want[0])
	f, _ := os.OpenFile(edited, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\nMy own note: feed it rye.\n")
	f.Close()
	mine := filepath.Join(home, "imports", "chatgpt", "2024", "mine.md")
	os.WriteFile(mine, []byte("# Mine\n"), 0o644)

	// Undo the later import: exactly its one file goes.
	u, err := Undo(ctx, db, home, 2, opts.Now)
	if err != nil || !slices.Equal(u.Removed, []string{second.Files[0].Path}) || len(u.Edited) != 0 {
		t.Fatalf("undo 2: %+v, %v", u, err)
	}
	// A dry run of it lists what the undo will do and changes nothing.
	before := files(t, home)
	d, err := UndoDryRun(ctx, db, home, 1)
	if err != nil || !d.DryRun || !slices.Equal(d.Removed, want[1:]) || !slices.Equal(d.Edited, want[:1]) || !slices.Equal(files(t, home), before) {
		t.Fatalf("undo 1 --dry-run: %+v, %v; files %v, were %v", d, err, files(t, home), before)
	}
	// Undo the first: the edited file and the user's own stay.
	u, err = Undo(ctx, db, home, 1, opts.Now)
	if err != nil || !slices.Equal(u.Removed, want[1:]) || !slices.Equal(u.Edited, want[:1]) {
		t.Fatalf("undo 1: %+v, %v", u, err)
	}
	if got := files(t, home); !slices.Equal(got, []string{want[0], "imports/chatgpt/2024/mine.md"}) {
		t.Errorf("after undo: %v", got)
	}
	if u, err := Undo(ctx, db, home, 1, opts.Now); err != nil || u.UndoneAt == "" || len(u.Removed)+len(u.Edited) != 0 {
		t.Errorf("undo twice: %+v, %v", u, err)
	}
	if _, err := Undo(ctx, db, home, 9, opts.Now); !errors.Is(err, ErrNotFound) {
		t.Errorf("undo of no import: %v", err)
	}
	list, err := List(ctx, db)
	if err != nil || len(list) != 2 || list[0].UndoneAt == nil || list[0].Conversations != 2 || list[0].Messages != 7 || list[0].Skipped != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	// Undone, the conversations import again, but not the one whose file
	// the undo kept: the user's edited file holds it, and its words are
	// not written (nor indexed) a second time. The import says so.
	third, err := Import(ctx, db, home, p, opts)
	if err != nil || len(third.Files) != 1 || third.Files[0].Path != want[1] || third.Already != 1 || !slices.Equal(third.InKept, want[:1]) {
		t.Fatalf("import after undo: %+v, %v", third, err)
	}
	if got := files(t, home); !slices.Equal(got, []string{want[0], want[1], "imports/chatgpt/2024/mine.md"}) {
		t.Errorf("after the import after undo: %v", got)
	}
	// The kept file deleted, the conversation comes back whole, not as a
	// continuation.
	os.Remove(edited)
	fourth, err := Import(ctx, db, home, p, opts)
	if err != nil || len(fourth.Files) != 1 || fourth.Files[0].Path != want[0] || fourth.Files[0].Continued {
		t.Fatalf("import after the kept file went: %+v, %v", fourth, err)
	}
	if data, _ := os.ReadFile(filepath.Join(home, want[0])); strings.Contains(string(data), "continued") || strings.Contains(string(data), "feed it rye") {
		t.Errorf("a whole conversation imported again:\n%s", data)
	}
}

func TestImportReimportAfterUndoKeptEdit(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	p := read(t, gptFixture, ChatGPT)
	first, err := Import(ctx, db, home, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(home, first.Files[1].Path) // the sourdough one
	f, _ := os.OpenFile(edited, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\nMy own note: feed it rye.\n")
	f.Close()
	if _, err := Undo(ctx, db, home, first.ID, opts.Now); err != nil {
		t.Fatal(err)
	}
	// A later export: the kept conversation went on. Only its new message
	// is written, as part 2 with its heading.
	later := read(t, gptFixture, ChatGPT)
	c := &later.Conversations[1]
	c.Messages = append(c.Messages, Message{ID: "b3", Role: "user", At: c.Started.Add(time.Hour), Text: "It smells of bread now."})
	res, err := Import(ctx, db, home, later, opts)
	if err != nil || len(res.Files) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	var part2 Planned
	for _, f := range res.Files {
		if f.ConversationID == c.ID {
			part2 = f
		}
	}
	data, _ := os.ReadFile(filepath.Join(home, part2.Path))
	if !part2.Continued || part2.Messages != 1 || !strings.HasSuffix(part2.Path, "-part2.md") || !strings.Contains(string(data), "(continued, part 2)") || strings.Contains(string(data), "nail polish") {
		t.Errorf("%+v:\n%s", part2, data)
	}
	// Indexed, each passage is found once.
	os.WriteFile(filepath.Join(home, "MEMORY.md"), nil, 0o644)
	ix, err := index.Open(ctx, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(ctx, "nail polish", index.SearchOptions{K: 5, Fresh: true})
	if err != nil || len(hits) != 1 {
		t.Errorf("search: %d hits, %v", len(hits), err)
	}
	if data, _ := os.ReadFile(edited); !strings.Contains(string(data), "feed it rye") {
		t.Error("the user's edit was lost")
	}
}

func TestImportIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	p := read(t, gptFixture, ChatGPT)

	// A failure while writing: nothing in place, nothing recorded.
	failing := opts
	failing.faults.stage = func(i int) error {
		if i == 1 {
			return errors.New("disk full")
		}
		return nil
	}
	_, err := Import(ctx, db, home, p, failing)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if f := files(t, home); len(f) != 0 {
		t.Errorf("a failed import left %v", f)
	}
	if list, _ := List(ctx, db); len(list) != 0 {
		t.Errorf("a failed import was recorded: %+v", list)
	}

	// A crash after the record, before the files are in place: the next
	// import (or list, or undo) puts them there.
	crashing := opts
	crashing.faults.afterCommit = func() bool { return true }
	res, err := Import(ctx, db, home, p, crashing)
	if !errors.Is(err, errCrashed) {
		t.Fatalf("err = %v", err)
	}
	if f := files(t, home); len(f) != 2 || !strings.Contains(f[0], "/.import-") {
		t.Fatalf("staged: %v", f)
	}
	// An unrecorded staging folder (a crash before the record) is dropped.
	os.MkdirAll(filepath.Join(home, "imports", ".import-99"), 0o700)
	os.WriteFile(filepath.Join(home, "imports", ".import-99", "0.md"), []byte("# half\n"), 0o600)
	if err := Recover(ctx, db, home); err != nil {
		t.Fatal(err)
	}
	got := files(t, home)
	if len(got) != 2 || strings.Contains(strings.Join(got, " "), ".import-") {
		t.Fatalf("recovered: %v", got)
	}
	u, err := Undo(ctx, db, home, res.ID, opts.Now)
	if err != nil || len(u.Removed) != 2 {
		t.Fatalf("undo of a recovered import: %+v, %v", u, err)
	}
	if f := files(t, home); len(f) != 0 {
		t.Errorf("left after undo: %v", f)
	}
}

// The files hold their sections: a message's own headings, rules and an
// unclosed fence stay inside it, so every chunk's heading path starts with
// the conversation, and the index dates the chunks by the conversation.
func TestImportedFilesChunkAndIndexByConversation(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	c := Conversation{ID: "c-1", Title: "Tricky [markdown]", Origin: Claude, Started: time.Date(2022, 2, 3, 4, 5, 0, 0, time.UTC),
		Messages: []Message{
			{ID: "1", Role: "user", At: time.Date(2022, 2, 3, 4, 5, 0, 0, time.UTC), Text: "# My heading\nSetext?\n---\n```go\nunclosed fence"},
			{ID: "2", Role: "assistant", At: time.Date(2022, 2, 3, 4, 6, 0, 0, time.UTC), Text: "Answer about the okapi."},
		}}
	res, err := Import(ctx, db, home, Parsed{Origin: Claude, Conversations: []Conversation{c}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(home, res.Files[0].Path))
	chunks, err := memory.ChunkFile(res.Files[0].Path, data, memory.ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	top := "2022-02-03 04:05 · Claude · Tricky [markdown]"
	var sections []string
	for _, ch := range chunks {
		if !strings.HasPrefix(ch.Heading, top) {
			t.Errorf("chunk %d-%d heading %q escapes the conversation", ch.StartLine, ch.EndLine, ch.Heading)
		}
		sections = append(sections, strings.TrimPrefix(ch.Heading, top))
	}
	if last := sections[len(sections)-1]; last != " › Claude · 2022-02-03 04:06" {
		t.Errorf("the assistant's words are not a section of their own: %q\n%s", last, data)
	}
	os.WriteFile(filepath.Join(home, "MEMORY.md"), nil, 0o644)
	ix, err := index.Open(ctx, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(ctx, "okapi", index.SearchOptions{K: 3, Fresh: true})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v, %v", hits, err)
	}
	if hits[0].Path != res.Files[0].Path || hits[0].Date != "2022-02-03" {
		t.Errorf("hit %s dated %q", hits[0].Path, hits[0].Date)
	}
}

// A Claude tool call with no name is named as unnamed, not as an empty
// word in the note of what was not imported.
func TestClaudeUnnamedToolCall(t *testing.T) {
	c, _, err := readClaude(json.RawMessage(`{"uuid":"c1","name":"t","created_at":"2026-11-20T09:00:00Z","chat_messages":[{"uuid":"m1","sender":"assistant","content":[{"type":"text","text":"Done."},{"type":"tool_use"}]}]}`), newTally())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 1 || strings.Join(c.Messages[0].Extras, "|") != "tool call (unnamed) (not imported)" {
		t.Fatalf("messages %+v", c.Messages)
	}
}

// A conversation whose title holds a forgotten phrase is left out whole:
// each of its messages counted as forgotten once, the title asked about
// once, and the conversation not counted as already imported.
func TestForgottenTitleLeavesTheConversationOut(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	p := read(t, gptFixture, ChatGPT)
	asked := map[string]int{}
	o := opts
	o.DryRun = true
	o.Forgotten = func(s string) bool {
		asked[s]++
		return strings.Contains(strings.ToLower(s), "sourdough")
	}
	res, err := Import(ctx, db, home, p, o)
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, c := range p.Conversations {
		if c.Title == "Sourdough starter" {
			want = len(c.Messages)
		}
	}
	if want == 0 || res.Forgotten != want || res.Already != 0 || len(res.Files) != 1 {
		t.Errorf("forgotten %d (want %d), already %d (want 0), files %d (want 1)", res.Forgotten, want, res.Already, len(res.Files))
	}
	if n := asked["Sourdough starter"]; n != 1 {
		t.Errorf("the title was asked about %d times, want once", n)
	}
}

// A zip whose directory reads but whose compressed data is damaged from its
// first bytes is said to be a damaged zip, not "not JSON".
func TestDamagedZipDataSaidAsSuch(t *testing.T) {
	data, _ := os.ReadFile(gptFixture)
	file := writeZip(t, map[string][]byte{"conversations.json": data})
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The entry's data starts after its 30-byte local header and name.
	start := 30 + len("conversations.json")
	for i := start; i < start+64; i++ {
		b[i] = 0xff
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadExport(file, ChatGPT)
	if err == nil || strings.Contains(err.Error(), "is not JSON") || !strings.Contains(err.Error(), "zip") {
		t.Errorf("ReadExport = %v, want it to say the zip is damaged", err)
	}
}

// A time in the imports table that does not read is said, naming the
// import, not listed as 0001-01-01 (List dropped time.Parse's error).
func TestListSaysATimeThatDoesNotRead(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	if res, err := Import(ctx, db, home, read(t, gptFixture, ChatGPT), opts); err != nil || res.ID != 1 {
		t.Fatalf("import: %+v, %v (the messages below name import 1)", res, err)
	}
	list, err := List(ctx, db)
	if err != nil || len(list) != 1 || !list[0].At.Equal(opts.Now.Truncate(time.Second)) || list[0].UndoneAt != nil {
		t.Fatalf("List = %+v, %v", list, err)
	}
	for _, c := range []struct{ set, want string }{
		{`UPDATE imports SET at = 'last tuesday'`, `import 1: its time "last tuesday" is not an RFC 3339 time`},
		{`UPDATE imports SET at = '2026-11-25T12:00:00Z', undone_at = '2026-13-01T00:00:00Z'`, `import 1: its undo time "2026-13-01T00:00:00Z" is not an RFC 3339 time`},
	} {
		if _, err := db.ExecContext(ctx, c.set); err != nil {
			t.Fatal(err)
		}
		if list, err := List(ctx, db); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("after %s: List = %+v, %v; want an error saying %s", c.set, list, err, c.want)
		}
	}
}
