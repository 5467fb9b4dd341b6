package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The exports as they really come (issue 35): each fixture under
// testdata/odd is one odd shape, written from the formats' documented and
// observed variants. Everything readable arrives; what does not is named.

func byTitle(t *testing.T, p Parsed, title string) Conversation {
	t.Helper()
	for _, c := range p.Conversations {
		if c.Title == title {
			return c
		}
	}
	t.Fatalf("no conversation %q among %d", title, len(p.Conversations))
	return Conversation{}
}

// A field the import does not need never fails an export whatever its
// type; times as strings of seconds, milliseconds, a number given as words
// are read.
func TestOddFieldTypesAreRead(t *testing.T) {
	p := read(t, "testdata/odd/gpt-string-times.json", ChatGPT)
	c := byTitle(t, p, "Times as text")
	if !c.Started.Equal(time.Date(2023, 11, 9, 15, 26, 15, 0, time.UTC)) {
		t.Errorf("started %v", c.Started)
	}
	if len(c.Messages) != 2 || c.Messages[0].Text != "How warm is 42?\n\n42" || c.Messages[1].Text != "Warm enough for a swim." {
		t.Fatalf("messages:\n%s", all(c))
	}
	if !c.Messages[1].At.Equal(time.Date(2023, 11, 9, 15, 26, 20, 0, time.UTC)) {
		t.Errorf("a time in milliseconds read as %v", c.Messages[1].At)
	}

	p = read(t, "testdata/odd/claude-odd.json", Claude)
	files := byTitle(t, p, "Files as names")
	if !files.Started.Equal(time.Date(2024, 6, 10, 9, 15, 30, 0, time.UTC)) || !files.Messages[0].At.Equal(time.Date(2024, 6, 10, 9, 15, 31, 0, time.UTC)) {
		t.Errorf("times without a zone, with an offset: %v, %v", files.Started, files.Messages[0].At)
	}
	got := all(files)
	for _, want := range []string{"file photo.png (not imported)", "file notes.md (not imported)", "Both received."} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q:\n%s", want, got)
		}
	}
	// internal blocks leave no marker
	for _, never := range []string{"token_budget", "HIDDEN", "thinking"} {
		if strings.Contains(got, never) {
			t.Errorf("%q in:\n%s", never, got)
		}
	}
	if p.Counts.LeftOut["internal"] != 1 || p.Counts.LeftOut["hidden reasoning"] != 1 {
		t.Errorf("left out %v", p.Counts.LeftOut)
	}
	// a title and words given as numbers are read as written
	n := byTitle(t, p, "2024")
	if len(n.Messages) != 1 || n.Messages[0].Text != "12345" || n.Messages[0].ID != "5" {
		t.Errorf("numbers as words: %s", all(n))
	}
}

// A conversation that cannot be read is skipped by itself, named with why
// in the user's words; the rest imports.
func TestUnreadableConversationIsSkippedAlone(t *testing.T) {
	p := read(t, "testdata/odd/gpt-one-bad.json", ChatGPT)
	if len(p.Conversations) != 2 || p.Conversations[0].Title != "Fine before" || p.Conversations[1].Title != "Fine after" {
		t.Fatalf("read %d conversations", len(p.Conversations))
	}
	if len(p.Unreadable) != 2 {
		t.Fatalf("unreadable %+v", p.Unreadable)
	}
	for i, want := range []string{
		`conversation 2 ("Broken time"): create_time is an object, expected a time`,
		`conversation 3 ("Broken words"): message u: author.role is a list, expected text`,
	} {
		if got := p.Unreadable[i].String(); !strings.HasPrefix(got, want) {
			t.Errorf("said %q, want %q", got, want)
		}
		if got := p.Unreadable[i].String(); strings.Contains(got, "Go ") || strings.Contains(got, "importer.") || strings.Contains(got, "json:") {
			t.Errorf("Go internals in %q", got)
		}
	}
	p = read(t, "testdata/odd/claude-odd.json", Claude)
	if len(p.Unreadable) != 1 || p.Unreadable[0].String() != `conversation 3 ("Unreadable"): chat_messages is text, expected a list` {
		t.Errorf("unreadable %+v", p.Unreadable)
	}
}

// Trees as they come: parent links only, children links only, loops and
// links to nodes not in the export — whole, and said, never a hang.
func TestTreesAsTheyCome(t *testing.T) {
	p := read(t, "testdata/odd/gpt-parent-only.json", ChatGPT)
	if c := p.Conversations[0]; len(c.Messages) != 15 || !strings.Contains(all(c), "parent-only message 14") {
		t.Errorf("parent links only: %d of 15 messages\n%s", len(c.Messages), all(c))
	}
	p = read(t, "testdata/odd/gpt-children-only.json", ChatGPT)
	if c := p.Conversations[0]; len(c.Messages) != 6 || c.Messages[0].Text != "children-only message 0" {
		t.Errorf("children links only: %d of 6 messages\n%s", len(c.Messages), all(c))
	}
	p = read(t, "testdata/odd/gpt-loops.json", ChatGPT)
	if len(p.Conversations) != 3 {
		t.Fatalf("%d conversations", len(p.Conversations))
	}
	if c := byTitle(t, p, "A loop"); all(c) != "user: loop question \nassistant: loop answer \n" {
		t.Errorf("a loop:\n%s", all(c))
	}
	if c := byTitle(t, p, "Dangling links"); all(c) != "user: dangling question \nassistant: dangling answer \n" {
		t.Errorf("dangling links:\n%s", all(c))
	}
	var notes []string
	for _, n := range p.Notes {
		notes = append(notes, n.String())
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{`conversation 1 ("A loop"): its messages' links loop`, `conversation 2 ("Dangling links"): links to 2 message(s) not in the export (gone-child, gone-parent)`,
		`conversation 3 ("Nothing but a loop"): its messages' links loop`} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
}

// ChatGPT uploads are named as Claude's are; a voice note's transcript is
// the user's words; one conversation saved on its own is read.
func TestUploadsVoiceNotesAndSingleConversation(t *testing.T) {
	p := read(t, "testdata/odd/gpt-uploads.json", ChatGPT)
	got := all(byTitle(t, p, "Interpretación del contrato"))
	for _, want := range []string{"image scan.jpg (not imported)", "attachment input.txt, 311 bytes (not imported)", "What do these say?"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q:\n%s", want, got)
		}
	}
	if p.Counts.Named["attachment"] != 1 || p.Counts.Named["image"] != 1 {
		t.Errorf("named %v", p.Counts.Named)
	}
	p = read(t, "testdata/odd/claude-odd.json", Claude)
	v := byTitle(t, p, "Voice")
	if v.Messages[0].Role != "user" || v.Messages[0].Text != "remind me to call the plumber about the boiler" {
		t.Errorf("voice note: %s", all(v))
	}
	if p.Counts.Text["voice note"] != 1 || p.Counts.Named["artifact"] != 1 {
		t.Errorf("counts %+v", p.Counts)
	}
	p = read(t, "testdata/odd/gpt-single.json", ChatGPT)
	if len(p.Conversations) != 1 || all(p.Conversations[0]) != "user: one conversation, no list around it \nassistant: read all the same \n" {
		t.Errorf("a single conversation: %+v", p)
	}
}

// File names keep letters of any script, within safe bytes.
func TestFileNamesKeepEveryScript(t *testing.T) {
	p := read(t, "testdata/odd/gpt-uploads.json", ChatGPT)
	want := map[string]string{
		"Interpretación del contrato": "imports/chatgpt/2023/2023-11-14-2213-interpretación-del-contrato-up1.md",
		"版本历史":                        "imports/chatgpt/2025/2025-10-14-0000-版本历史-zh1.md",
	}
	for _, c := range p.Conversations {
		name := fileName(&c, 1, time.UTC)
		if w, ok := want[c.Title]; ok && name != w {
			t.Errorf("%q: %s, want %s", c.Title, name, w)
		}
		base := filepath.Base(name)
		if strings.ContainsAny(base, "/\\\x00\x07") || strings.Contains(base, "..") || !utf8.ValidString(base) {
			t.Errorf("unsafe name %q", base)
		}
	}
	long := Conversation{ID: "x", Title: strings.Repeat("é", 100), Started: time.Unix(0, 0)}
	base := filepath.Base(fileName(&long, 1, time.UTC))
	if !utf8.ValidString(base) || len(base) > 100 {
		t.Errorf("a long title: %q (%d bytes)", base, len(base))
	}
	mark := Conversation{ID: "x", Title: "नमस्ते दुनिया", Started: time.Unix(0, 0)}
	if base := filepath.Base(fileName(&mark, 1, time.UTC)); base != "1970-01-01-0000-नमस्ते-दुनिया-x.md" {
		t.Errorf("Devanagari with its marks: %q", base)
	}
}

// A kill -9 after a file is linked into place and before its staged copy
// is removed: the next run finds the name already links to the staged
// file, so there is no duplicate, and undo leaves nothing behind.
func TestPlacementIsIdempotentAfterAKill(t *testing.T) {
	ctx := context.Background()
	db, home := openDB(t), t.TempDir()
	p := read(t, gptFixture, ChatGPT)
	killed := opts
	killed.faults.beforeUnstage = func(i int) bool { return i == 1 }
	res, err := Import(ctx, db, home, p, killed)
	if !errors.Is(err, errCrashed) {
		t.Fatalf("err = %v", err)
	}
	if err := Recover(ctx, db, home); err != nil {
		t.Fatal(err)
	}
	got := files(t, home)
	if len(got) != 2 {
		t.Fatalf("after recovery: %v (want the 2 files, no duplicate)", got)
	}
	u, err := Undo(ctx, db, home, res.ID, opts.Now)
	if err != nil || len(u.Removed) != 2 {
		t.Fatalf("undo: %+v, %v", u, err)
	}
	if f := files(t, home); len(f) != 0 {
		t.Errorf("orphans after undo: %v", f)
	}
}

// An export's memory is bounded: a zip entry that says it inflates beyond
// the bound is refused before it is read, one conversation beyond its own
// bound is refused while read, and the export is read a conversation at a
// time.
func TestSizeBounds(t *testing.T) {
	data, _ := os.ReadFile(gptFixture)
	zipped := writeZip(t, map[string][]byte{"conversations.json": data})
	_, err := readExport(zipped, ChatGPT, limits{export: 1000, conversation: 1 << 20})
	if !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), "would inflate to") {
		t.Errorf("a zip entry beyond the bound: %v", err)
	}
	_, err = readExport(gptFixture, ChatGPT, limits{export: 1000, conversation: 1 << 20})
	if !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), "more than the 1000 bytes any export holds") {
		t.Errorf("a file beyond the bound: %v", err)
	}
	// A stream (a pipe, a zip entry that lies) is held to the bound as read.
	r := &countingReader{r: strings.NewReader(strings.Repeat(" ", 5000)), lim: limits{export: 1000, conversation: 1 << 20}}
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, errTooLarge) || err.Error() != "conversations.json is larger than 1000 bytes, more than any export holds" {
		t.Errorf("a stream beyond the bound: %v", err)
	}
	big := fmt.Sprintf(`[{"uuid": "u", "name": "big", "created_at": "2024-06-10T09:15:30Z", "chat_messages": [{"uuid": "m", "sender": "human", "text": %q}]}]`, strings.Repeat("x", 300<<10))
	file := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(file, []byte(big), 0o644)
	_, err = readExport(file, Claude, limits{export: 1 << 30, conversation: 100 << 10})
	if err == nil || !strings.Contains(err.Error(), "conversation 1 is larger than") {
		t.Errorf("a conversation beyond the bound: %v", err)
	}
	if _, err := readExport(file, Claude, defaultLimits); err != nil {
		t.Errorf("within the bounds: %v", err)
	}
}

// A block given as a bare string is its text; an unreadable conversation
// is named by its id when it has no title.
func TestClaudeStringBlockAndUnreadableByID(t *testing.T) {
	file := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(file, []byte(`[{"uuid": "s-1", "name": "Strings", "created_at": "2024-06-10T09:15:30Z", "chat_messages": [
	  {"uuid": "1", "sender": "human", "content": ["plain block words"]}]},
	 {"uuid": "s-2", "created_at": "2024-06-10T09:15:30Z", "chat_messages": [{"uuid": "1", "sender": {"name": "me"}}]}]`), 0o644)
	p := read(t, file, Claude)
	if len(p.Conversations) != 1 || all(p.Conversations[0]) != "user: plain block words \n" {
		t.Errorf("a string block: %+v", p.Conversations)
	}
	if len(p.Unreadable) != 1 || p.Unreadable[0].String() != "conversation 2 (s-2): message 1: sender is an object, expected text" {
		t.Errorf("unreadable %+v", p.Unreadable)
	}
}
