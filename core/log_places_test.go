package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A turn stored before its place was kept (log_path NULL) gets it once, at
// the open, from its session's heading that holds its words, in order; a
// turn the logs do not hold is marked not logged, and the step is recorded
// so it never runs again.
func TestOpenFillsThePlacesOfOlderTurns(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "ws")
	ws, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	st := NewSessions(ws.State, time.Now)
	var ids []int64
	for _, c := range []struct{ session, text string }{{"gym", "yes"}, {"other", "yes"}, {"gym", "yes"}, {"gym", "never logged"}} {
		s, err := st.Get(ctx, c.session)
		if err != nil {
			if s, err = st.Create(ctx, c.session, "m"); err != nil {
				t.Fatal(err)
			}
		}
		id, err := st.Append(ctx, &s, StoredMessage{Role: "user", Content: c.text})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// As migration 0008 left them, and as if the step had not run yet.
	if _, err := ws.State.Exec(`UPDATE messages SET log_path = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.State.Exec(`DELETE FROM schema_migrations WHERE name = 'core/` + logPlacesStep + `'`); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	log := "# 2026-11-20\n\n### 09:00 · session gym\n\n**User:** yes\n\n**Atlas:** the first\n\n" +
		"### 09:01 · session other\n\n**User:** yes\n\n### 09:02 · session gym\n\n**User:** yes\n\n**Atlas:** the second\n\n\n"
	if err := os.WriteFile(filepath.Join(home, LogsDir, "2026-11-20.md"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err = Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	want := map[int64]LogSpan{
		ids[0]: {Path: "logs/2026-11-20.md", Start: 3, End: 7},
		ids[1]: {Path: "logs/2026-11-20.md", Start: 9, End: 11},
		ids[2]: {Path: "logs/2026-11-20.md", Start: 13, End: 17},
		ids[3]: {},
	}
	for id, w := range want {
		var got LogSpan
		var path *string
		if err := ws.State.QueryRow(`SELECT log_path, log_start, log_end FROM messages WHERE id = ?`, id).Scan(&path, &got.Start, &got.End); err != nil {
			t.Fatal(err)
		}
		if path == nil {
			t.Errorf("message %d: no place filled", id)
			continue
		}
		got.Path = *path
		if got != w {
			t.Errorf("message %d: place %+v, want %+v", id, got, w)
		}
	}
	var n int
	if err := ws.State.QueryRow(`SELECT count(*) FROM schema_migrations WHERE name = 'core/` + logPlacesStep + `'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the step is recorded %d times (err %v), want once", n, err)
	}
}
