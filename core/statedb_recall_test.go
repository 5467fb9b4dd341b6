package core

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// A state.db written by the agent before migration 0008 (which passages a
// message's context recalled, and where they begin, known only from its
// rendered text) replays its sessions byte for byte after the migration:
// the folded exchanges cut where that agent cut them, the open ones whole.
// And what those contexts recalled is known from the stored references, so
// a passage one of them carries is not recalled twice.
func TestStoredSessionsReplayAfterRecallMigration(t *testing.T) {
	ctx := context.Background()
	ar, err := txtar.ParseFile("testdata/sessions-before.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	home := t.TempDir()
	// Init writes the workspace's files; its state.db is replaced by the old one.
	ws0, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	ws0.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(home, StateFile+suffix))
	}
	old, err := sql.Open("sqlite3", "file:"+filepath.Join(home, StateFile)+"?mode=rwc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(files["state.sql"]); err != nil {
		t.Fatalf("load the old state.db: %v", err)
	}
	old.Close()

	ws, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, tc := range []struct {
		session string
		numCtx  int
	}{{"trip", 4000}, {"plain", 8192}} {
		t.Run(tc.session, func(t *testing.T) {
			chat := NewChat(ws, nil, "llama3.2", nil)
			chat.Now = func() time.Time { return time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC) }
			chat.NumCtx = tc.numCtx
			s, err := chat.Sessions.Get(ctx, tc.session)
			if err != nil {
				t.Fatal(err)
			}
			a, err := chat.Assemble(ctx, &s, "zzz qqq")
			if err != nil {
				t.Fatal(err)
			}
			var want []Message
			if err := json.Unmarshal([]byte(files["want/"+tc.session+".json"]), &want); err != nil {
				t.Fatal(err)
			}
			got := a.Messages
			// The fixed layers and the new message carry today's date; the
			// history is what the stored session replays.
			if len(got) != len(want) {
				t.Fatalf("%d messages, want %d", len(got), len(want))
			}
			for i := 3; i < len(want)-1; i++ {
				if got[i].Role != want[i].Role || got[i].Content != want[i].Content {
					t.Errorf("message %d replays\n%q\nwant\n%q", i, got[i].Content, want[i].Content)
				}
			}
		})
	}

	// Every recalled passage of the old contexts is a stored reference, by
	// its citation and its fenced words.
	chat := NewChat(ws, nil, "llama3.2", nil)
	s, err := chat.Sessions.Get(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := chat.Sessions.Messages(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, m := range msgs {
		// Stored before 0008 kept a turn's log place, each is filled once
		// at open (0009_log_places.go); this workspace holds none of the
		// old logs, so each turn is marked not logged, as --no-log is.
		if m.Role == "user" && (!m.LogKnown || m.Logged.Path != "") {
			t.Errorf("message %d, stored before its log place was kept, was not filled as not logged: known %v, %+v", m.ID, m.LogKnown, m.Logged)
		}
		if m.Role != "user" || m.RecallAt == 0 {
			continue
		}
		refs, err := m.Recalled.Decode()
		if err != nil {
			t.Fatalf("message %d: %v", m.ID, err)
		}
		if n := strings.Count(m.Context[m.RecallAt:], "<memory source="); len(refs) != n || n == 0 {
			t.Fatalf("message %d: %d references for %d fences", m.ID, len(refs), n)
		}
		for _, r := range refs {
			if r.Citation == "" || r.SHA256 == "" || !strings.Contains(m.Context, `<memory source="`+r.Citation+`"`) {
				t.Errorf("message %d: reference %+v", m.ID, r)
			}
			// The same passage, recalled again: known by its citation.
			path, lines, _ := strings.Cut(r.Citation, ":")
			first, rest, _ := strings.Cut(lines, "-")
			last, heading, _ := strings.Cut(rest, " › ")
			h := Recalled{Path: path, Heading: heading, Text: "words since changed"}
			h.StartLine, _ = strconv.Atoi(first)
			h.EndLine, _ = strconv.Atoi(last)
			if !slices.ContainsFunc(refs, func(r RecallRef) bool { return r.Holds(h) }) {
				t.Errorf("message %d carries %s, yet recall does not know it", m.ID, r.Citation)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no recalled passage in the old session: the fixture proves nothing")
	}
}
