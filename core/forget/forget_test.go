package forget_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/core"
	"agent/core/forget"
	"agent/core/importer"
	"agent/memory"
)

func TestFindIsCaseInsensitiveAndKeepsTheRest(t *testing.T) {
	home, db := workspace(t)
	write(t, home, "logs/2026-11-20.md", "# 2026-11-20\n\n### 10:00\n\nÉlodie said: marta's NEWS is out; Marta's news again.\n")
	p, err := forget.Find(context.Background(), home, db, nil, "Marta's News")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(context.Background(), home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	got := read(t, home, "logs/2026-11-20.md")
	if want := "# 2026-11-20\n\n### 10:00\n\nÉlodie said: [forgotten] is out; [forgotten] again.\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestFindRefusesWhatCannotBeAPhrase(t *testing.T) {
	home, db := workspace(t)
	for _, phrase := range []string{"", "  ", "two\nlines", "forgotten"} {
		if _, err := forget.Find(context.Background(), home, db, nil, phrase); err == nil {
			t.Errorf("Find(%q) = nil error", phrase)
		}
	}
}

// TestForgottenHolds: the hashes kept recognise the phrase in any case
// inside a longer text, and nothing else; the phrase itself is nowhere in
// state.db.
// forgetHeron writes a log holding "Blue Heron 42" and forgets it.
func forgetHeron(t *testing.T, home string, db *sql.DB) {
	t.Helper()
	write(t, home, "logs/2026-11-20.md", "# 2026-11-20\n\nthe door code is Blue Heron 42\n")
	p, err := forget.Find(context.Background(), home, db, nil, "blue heron 42")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(context.Background(), home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func TestForgottenHolds(t *testing.T) {
	home, db := workspace(t)
	forgetHeron(t, home, db)
	f, err := forget.LoadForgotten(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"remember: BLUE HERON 42, ok?": true,
		"blue heron 42":                true,
		"blue heron 43":                false,
		"blue heron":                   false,
		"":                             false,
	} {
		if got := f.Holds(text); got != want {
			t.Errorf("Holds(%q) = %v, want %v", text, got, want)
		}
	}
	// Scrub replaces it by the marker, in any case, and keeps the rest.
	if got, n := f.Scrub("Blue Heron 42 twice: blue heron 42; not blue heron 43"); n != 2 || got != "[forgotten] twice: [forgotten]; not blue heron 43" {
		t.Errorf("Scrub = %q, %d", got, n)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM forgotten`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("forgotten rows: %d, %v; want the one forget recorded", n, err)
	}
	// Recorded without the phrase: no byte of state.db (its WAL included)
	// holds it, in any case.
	if held := filesHolding(t, home, "state.db*", "heron"); len(held) != 0 {
		t.Errorf("%v hold the phrase", held)
	}
}

// A value that changed between the listing and the forget (a chat turn, a
// revision, while the user read the list) is not overwritten with the old
// words: the forget stops, changing nothing.
func TestForgetRefusesAValueChangedSinceListed(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	write(t, home, "logs/2026-11-20.md", "# 2026-11-20\n\nthe door code is blue heron 42\n")
	res, err := db.Exec(`INSERT INTO profile_proposals (key, value, reason, proposed_by, created_at) VALUES ('user.door', 'blue heron 42', 'said so', 'test', '2026-11-20T10:00:00Z')`)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	p, err := forget.Find(ctx, home, db, nil, "blue heron 42")
	if err != nil {
		t.Fatal(err)
	}
	const newer = "blue heron 42, and the new code is 7"
	if _, err := db.Exec(`UPDATE profile_proposals SET value = ? WHERE rowid = ?`, newer, id); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err == nil || !strings.Contains(err.Error(), "changed since it was listed") {
		t.Fatalf("Apply = %v, want a refusal naming the changed value", err)
	}
	var v string
	if err := db.QueryRow(`SELECT value FROM profile_proposals WHERE rowid = ?`, id).Scan(&v); err != nil || v != newer {
		t.Errorf("the value is %q (%v), want the newer words kept", v, err)
	}
	if got := read(t, home, "logs/2026-11-20.md"); !strings.Contains(got, "blue heron 42") {
		t.Errorf("the log was changed though the forget stopped: %q", got)
	}
}

// TestSessionsDelete: a deleted session's messages are gone from state.db,
// its logged turns from the log (the other session's turn and notes stay
// byte for byte), and a digest citing a line after the removed turn cites
// its new number; one citing the removed turn is marked.
func TestSessionsDelete(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	st := core.NewSessions(db, time.Now)
	logTurns(t, st, map[string]core.LogSpan{"gone": {Path: "logs/2026-11-20.md", Start: 7, End: 11}, "kept": {Path: "logs/2026-11-20.md", Start: 13, End: 15}})
	log := "# 2026-11-20\n\n### 09:00\n\nA note.\n\n### 10:00 · session gone\n\n**User:** hello from gone\n\n**Atlas:** hi\n\n### 11:00 · session kept\n\n**User:** hello from kept\n"
	write(t, home, "logs/2026-11-20.md", log)
	write(t, home, "digests/2026-W47.md", "# Week\n\n- a note (logs/2026-11-20.md:5)\n- gone said hello (logs/2026-11-20.md:9)\n- kept said hello (logs/2026-11-20.md:15)\n")
	p, err := forget.Sessions(ctx, home, db, nil, []string{"gone"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, home, "logs/2026-11-20.md"), "# 2026-11-20\n\n### 09:00\n\nA note.\n\n### 11:00 · session kept\n\n**User:** hello from kept\n"; got != want {
		t.Errorf("log:\n got %q\nwant %q", got, want)
	}
	if got, want := read(t, home, "digests/2026-W47.md"), "# Week\n\n- a note (logs/2026-11-20.md:5)\n- [source deleted by agent forget] gone said hello (logs/2026-11-20.md:9)\n- kept said hello (logs/2026-11-20.md:9)\n"; got != want {
		t.Errorf("digest:\n got %q\nwant %q", got, want)
	}
	if _, err := st.Get(ctx, "gone"); err == nil {
		t.Error("the session is still there")
	}
	if _, err := st.Get(ctx, "kept"); err != nil {
		t.Errorf("the other session: %v", err)
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM messages WHERE content LIKE '%gone%'`).Scan(&n)
	if n != 0 {
		t.Errorf("%d messages of the deleted session left", n)
	}
	for _, f := range []string{"state.db", "state.db-wal"} {
		if b, err := os.ReadFile(filepath.Join(home, f)); err == nil && strings.Contains(string(b), "hello from gone") {
			t.Errorf("%s still holds the deleted session's words", f)
		}
	}
	if _, err := forget.Sessions(ctx, home, db, nil, []string{"nosuch"}, time.Time{}); err == nil {
		t.Error("an unknown session is no error")
	}
	// --before: every session last active before the date.
	p, err = forget.Sessions(ctx, home, db, nil, nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "kept"); err == nil {
		t.Error("--before an hour from now left a session")
	}
}

// TestRecoverRollsBackAnUncommittedForget: a journal whose forget never
// committed (no forgotten row) is undone: the staged files go, the
// workspace's files are as they were.
func TestRecoverRollsBackAnUncommittedForget(t *testing.T) {
	home, db := workspace(t)
	write(t, home, ".forget/1", "staged")
	write(t, home, ".forget/journal.json", `{"id":"abc","files":[{"rel":"MEMORY.md","staged":"1"}],"index":false}`)
	before := read(t, home, "MEMORY.md")
	if err := forget.Recover(context.Background(), home, db, nil); err != nil {
		t.Fatal(err)
	}
	if read(t, home, "MEMORY.md") != before {
		t.Error("MEMORY.md changed")
	}
	if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) {
		t.Error("the journal folder is still there")
	}
}

func workspace(t *testing.T) (string, *sql.DB) {
	t.Helper()
	home := t.TempDir()
	ws, _, err := core.Init(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return home, ws.State
}

func write(t *testing.T, home, rel, s string) {
	t.Helper()
	p := filepath.Join(home, rel)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, home, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRecoverWaitsForAForgetInProgress: a journal not yet committed is
// judged only once the memory lock is free: a forget in progress holds it
// from its first staged file to its end, and another process's open must
// not roll back what that forget is about to commit.
func TestRecoverWaitsForAForgetInProgress(t *testing.T) {
	home, db := workspace(t)
	write(t, home, ".forget/1", "staged")
	write(t, home, ".forget/journal.json", `{"id":"abc","files":[{"rel":"MEMORY.md","staged":"1"}],"index":false}`)
	unlock, err := memory.Lock(home)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- forget.Recover(context.Background(), home, db, nil) }()
	select {
	case err := <-done:
		unlock()
		t.Fatalf("Recover ran while a forget held the lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := os.Stat(filepath.Join(home, ".forget", "1")); err != nil {
		t.Fatalf("the staged file went while the forget held the lock: %v", err)
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) {
		t.Error("the uncommitted journal was not rolled back once the lock was free")
	}
}

// TestFindRenamesAFileWhoseNameHoldsIt: an imported conversation is named
// after its title; the phrase leaves the name too, and the import's record
// of the path follows (replaced the same way), so undo still finds it.
func TestFindRenamesAFileWhoseNameHoldsIt(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	old := "imports/chatgpt/2024/2024-05-01-1532-marta-pregnant-abc.md"
	write(t, home, old, "# marta-pregnant\n\nSome words.\n")
	if _, err := db.Exec(`INSERT INTO imports (id, origin, source, at, conversations, messages, skipped) VALUES (1, 'chatgpt', 'x.zip', '2026-01-01T00:00:00Z', 1, 1, 0);
		INSERT INTO import_items (import_id, origin, conversation_id, path, sha256, message_ids) VALUES (1, 'chatgpt', 'abc', ?1, x'00', 'm1')`, old); err != nil {
		t.Fatal(err)
	}
	p, err := forget.Find(ctx, home, db, nil, "marta-pregnant")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	var path string
	db.QueryRow(`SELECT path FROM import_items`).Scan(&path)
	if want := "imports/chatgpt/2024/2024-05-01-1532-[forgotten]-abc.md"; path != want {
		t.Fatalf("import_items.path = %q, want %q", path, want)
	}
	if got := read(t, home, path); got != "# [forgotten]\n\nSome words.\n" {
		t.Errorf("renamed file holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(home, old)); !os.IsNotExist(err) {
		t.Errorf("the old name is still there: %v", err)
	}
}

// TestReimportSkipsWhatWasForgotten: after a forget, an import of an
// export that still holds the phrase (in any case) leaves those messages
// out, counts them, and writes no byte of the phrase.
func TestReimportSkipsWhatWasForgotten(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	write(t, home, "logs/2026-11-20.md", "# 2026-11-20\n\nthe starter smells like NAIL POLISH today\n")
	p, err := forget.Find(ctx, home, db, nil, "nail polish")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	f, err := forget.LoadForgotten(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := importer.ReadExport("../importer/testdata/chatgpt-conversations.json", importer.ChatGPT)
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.Import(ctx, db, home, parsed, importer.Options{Source: "x", Location: time.UTC, Now: time.Now(), Forgotten: f.Holds})
	if err != nil {
		t.Fatal(err)
	}
	if res.Forgotten != 1 {
		t.Errorf("Forgotten = %d, want the 1 message holding the phrase", res.Forgotten)
	}
	for _, fl := range res.Files {
		if b := read(t, home, fl.Path); strings.Contains(strings.ToLower(b), "nail polish") {
			t.Errorf("%s holds the forgotten phrase", fl.Path)
		}
	}
	if len(res.Files) != 2 {
		t.Errorf("the other messages were not imported: %d files", len(res.Files))
	}
}

// TestForgetRecountsPositions: a message whose words changed length moves
// the positions the window counts for the messages after it.
func TestForgetRecountsPositions(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	st := core.NewSessions(db, time.Now)
	s, err := st.Create(ctx, "k", "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []core.StoredMessage{{Role: "user", Content: "a very long secret phrase here"}, {Role: "assistant", Content: "ok"}, {Role: "user", Content: "next"}} {
		if _, err := st.Append(ctx, &s, m); err != nil {
			t.Fatal(err)
		}
	}
	p, err := forget.Find(ctx, home, db, nil, "very long secret phrase")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	var before int
	db.QueryRow(`SELECT chars_before FROM messages WHERE content = 'next'`).Scan(&before)
	if want := len("a [forgotten] here") + len("ok"); before != want {
		t.Errorf("chars_before = %d, want %d", before, want)
	}
}

// TestRecoverJournalStates: what the next open does with each state a
// forget can be stopped in. Committed (its forgotten row written): the
// staged files are put in place, a renamed file's old name removed, the
// journal gone. A folder without a journal: left-overs, removed. A
// journal that does not parse: left alone, with an error that says so.
func TestRecoverJournalStates(t *testing.T) {
	ctx := context.Background()
	t.Run("committed", func(t *testing.T) {
		home, db := workspace(t)
		write(t, home, "imports/old name.md", "the old file")
		write(t, home, ".forget/1", "MEMORY.md without it\n")
		write(t, home, ".forget/2", "the renamed file\n")
		write(t, home, ".forget/journal.json", `{"id":"abc","files":[{"rel":"MEMORY.md","staged":"1"},{"rel":"imports/new name.md","staged":"2","from":"imports/old name.md"}],"index":false}`)
		if _, err := db.Exec(`INSERT INTO forgotten (id, kind, files, rows, sessions, at) VALUES ('abc', 'phrase', 2, 0, 0, '2026-11-27T00:00:00Z')`); err != nil {
			t.Fatal(err)
		}
		if err := forget.Recover(ctx, home, db, nil); err != nil {
			t.Fatal(err)
		}
		if got := read(t, home, "MEMORY.md"); got != "MEMORY.md without it\n" {
			t.Errorf("MEMORY.md = %q, want the staged content", got)
		}
		if got := read(t, home, "imports/new name.md"); got != "the renamed file\n" {
			t.Errorf("new name = %q", got)
		}
		if _, err := os.Stat(filepath.Join(home, "imports", "old name.md")); !os.IsNotExist(err) {
			t.Error("the old name is still there")
		}
		if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) {
			t.Error("the journal folder is still there")
		}
	})
	t.Run("no journal", func(t *testing.T) {
		home, db := workspace(t)
		write(t, home, ".forget/1", "staged")
		before := read(t, home, "MEMORY.md")
		if err := forget.Recover(ctx, home, db, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) || read(t, home, "MEMORY.md") != before {
			t.Error("left-overs not removed, or MEMORY.md changed")
		}
	})
	t.Run("damaged journal", func(t *testing.T) {
		home, db := workspace(t)
		write(t, home, ".forget/1", "staged")
		write(t, home, ".forget/journal.json", `{"id":`)
		err := forget.Recover(ctx, home, db, nil)
		if err == nil || !strings.Contains(err.Error(), "is damaged") {
			t.Fatalf("Recover = %v, want it to say the journal is damaged", err)
		}
		if _, err := os.Stat(filepath.Join(home, ".forget", "1")); err != nil {
			t.Error("a damaged journal's staged file was removed")
		}
	})
}

// A notes folder is the user's own: a note holding the phrase is listed
// (as the index names it, with its line) and never written, also after
// the forget; a hidden file the index does not read is not looked at.
func TestNotesFoldersListedNeverWritten(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	notes := t.TempDir()
	const note = "# Plans\n\nnothing here\nthe code is blue heron 42\n"
	if err := os.WriteFile(filepath.Join(notes, "plans.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, ".draft.md"), []byte("blue heron 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := memory.AddSource(home, "work", notes); err != nil {
		t.Fatal(err)
	}
	p, err := forget.Find(ctx, home, db, nil, "Blue Heron 42")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, pl := range p.Places {
		if pl.Kind == "notes" {
			listed = append(listed, fmt.Sprintf("%s:%d", pl.Path, pl.Line))
		}
	}
	if strings.Join(listed, " ") != "work:plans.md:4" || p.Kept != 1 {
		t.Errorf("notes listed: %v (kept %d), want work:plans.md:4 only", listed, p.Kept)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(notes, "plans.md")); string(b) != note {
		t.Errorf("the note was written: %q", b)
	}
}

// A phrase forgotten from a message's context before its recalled passages
// moves where they begin (messages.recall_at) with it: the window folds the
// message at its time still, not inside it or inside a passage.
func TestForgetMovesWhereRecallBegins(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	st := core.NewSessions(db, time.Now)
	s, err := st.Create(ctx, "k", "m")
	if err != nil {
		t.Fatal(err)
	}
	note := "[sent Sun 22 Nov 2026 09:30] after the talk with a very long secret phrase here"
	ctxt := note + "\n\nRecalled memory: passages.\n\n<memory source=\"MEMORY.md:3-3\">\nthe very long secret phrase here again\n</memory>\n"
	if _, err := st.Append(ctx, &s, core.StoredMessage{Role: "user", Content: "hi", Context: ctxt, RecallAt: len(note)}); err != nil {
		t.Fatal(err)
	}
	p, err := forget.Find(ctx, home, db, nil, "very long secret phrase")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Messages(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	if want := "[sent Sun 22 Nov 2026 09:30] after the talk with a [forgotten] here"; m.Context[:m.RecallAt] != want {
		t.Errorf("folds to %q, want %q", m.Context[:m.RecallAt], want)
	}
	if !strings.HasPrefix(m.Context[m.RecallAt:], "\n\nRecalled memory") || strings.Contains(m.Context, "secret") {
		t.Errorf("context after the forget:\n%s", m.Context)
	}
}

// Deleting a session's logged turns from a log moves the turns below them:
// where core's messages say those were logged moves with them.
func TestSessionsDeleteMovesLoggedTurns(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	st := core.NewSessions(db, time.Now)
	const rel = "logs/2026-11-20.md"
	logTurns(t, st, map[string]core.LogSpan{"gone": {Path: rel, Start: 7, End: 11}, "kept": {Path: rel, Start: 13, End: 15}})
	write(t, home, rel, "# 2026-11-20\n\n### 09:00\n\nA note.\n\n### 10:00 · session gone\n\n**User:** hello from gone\n\n**Atlas:** hi\n\n### 11:00 · session kept\n\n**User:** hello from kept\n")
	p, err := forget.Sessions(ctx, home, db, nil, []string{"gone"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	kept, err := st.Get(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Messages(ctx, kept)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := msgs[0].Logged, (core.LogSpan{Path: rel, Start: 7, End: 9}); !msgs[0].LogKnown || got != want {
		t.Errorf("kept's turn logged at %+v, want %+v", got, want)
	}
	lines := strings.Split(read(t, home, rel), "\n")
	if lines[6] != "### 11:00 · session kept" || lines[8] != "**User:** hello from kept" {
		t.Errorf("the log's lines 7-9: %q", lines[6:9])
	}
}

// logTurns stores a session per name, each with one exchange logged where
// places say, as chat stores them.
func logTurns(t *testing.T, st *core.Sessions, places map[string]core.LogSpan) {
	t.Helper()
	ctx := context.Background()
	for _, name := range slices.Sorted(maps.Keys(places)) {
		s, err := st.Create(ctx, name, "m")
		if err != nil {
			t.Fatal(err)
		}
		id, err := st.Append(ctx, &s, core.StoredMessage{Role: "user", Content: "hello from " + name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendReply(ctx, &s, core.StoredMessage{Role: "assistant", Content: "hi"}, id, places[name]); err != nil {
			t.Fatal(err)
		}
	}
}

// A session's logged turns are found where its messages say they were
// logged, not by the name in the headings: another device's session of
// the same name, whose turns a sync brought into the same log, keeps them.
func TestSessionsDeleteLeavesAnotherDevicesTurns(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	const rel = "logs/2026-11-20.md"
	logTurns(t, core.NewSessions(db, time.Now), map[string]core.LogSpan{"gone": {Path: rel, Start: 3, End: 7}})
	other := "### 11:00 · session gone\n\n**User:** hello from the laptop\n\n**Atlas:** hi\n"
	write(t, home, rel, "# 2026-11-20\n\n### 10:00 · session gone\n\n**User:** hello from gone\n\n**Atlas:** hi\n\n"+other)
	p, err := forget.Sessions(ctx, home, db, nil, []string{"gone"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, home, rel), "# 2026-11-20\n\n"+other; got != want {
		t.Errorf("log:\n got %q\nwant %q", got, want)
	}
}
