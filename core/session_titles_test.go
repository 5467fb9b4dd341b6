package core

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A session is titled by its first message with words (slugged, unique
// among titles), answers to its title where no session has that name,
// keeps its name, and is listed with its status; the answered-only
// listing counts what it leaves out.
func TestSessionTitlesAndStatus(t *testing.T) {
	ctx := context.Background()
	ws, _, err := Init(ctx, filepath.Join(t.TempDir(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	st := NewSessions(ws.State, func() time.Time { at = at.Add(time.Second); return at })
	add := func(s *Session, role, text string) {
		t.Helper()
		if _, err := st.Append(ctx, s, StoredMessage{Role: role, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	e, _ := st.Create(ctx, "when-do-i-fly-to-2", "m") // a name a title must not take
	a, _ := st.CreateAt(ctx, at, "m")
	add(&a, "user", "?!")
	add(&a, "user", "When do I fly to Lisbon? The tickets are in my mail")
	add(&a, "assistant", "On the tenth.")
	add(&a, "user", "and back?")
	b, _ := st.CreateAt(ctx, at, "m")
	add(&b, "user", "when do I fly to LISBON")
	add(&b, "assistant", "")
	c, _ := st.CreateAt(ctx, at, "m")
	for s, want := range map[*Session]string{&a: "when-do-i-fly-to", &b: "when-do-i-fly-to-3", &c: "", &e: ""} {
		got, err := st.Get(ctx, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != want || s.Title != want {
			t.Errorf("session %s titled %q (in memory %q), want %q", s.Name, got.Title, s.Title, want)
		}
	}
	if got, err := st.Get(ctx, "when-do-i-fly-to-3"); err != nil || got.Name != b.Name {
		t.Errorf("Get by title = %q, %v; want %s", got.Name, err, b.Name)
	}
	if got, err := st.Get(ctx, "when-do-i-fly-to-2"); err != nil || got.Name != e.Name {
		t.Errorf("a name wins over a title: got %q, %v", got.Name, err)
	}
	list, err := st.List(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, s := range list {
		status[s.Name] = s.Status
	}
	want := map[string]string{a.Name: SessionAnswered, b.Name: SessionUnanswered, c.Name: SessionEmpty, e.Name: SessionEmpty}
	for n, w := range want {
		if status[n] != w {
			t.Errorf("session %s is %q, want %q", n, status[n], w)
		}
	}
	answered, hidden, err := st.ListAnswered(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(answered) != 1 || answered[0].Name != a.Name || hidden != 3 {
		t.Errorf("ListAnswered = %d sessions, %d hidden; want only %s and 3 hidden", len(answered), hidden, a.Name)
	}
}

// Sessions stored before titles were kept get theirs once, at the open,
// from their first message with words, the older session the plain slug.
func TestOpenTitlesOlderSessions(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "ws")
	ws, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	st := NewSessions(ws.State, time.Now)
	var names []string
	for _, texts := range [][]string{{"...", "Call mom on Sunday"}, {"call MOM on sunday!"}, {}} {
		s, err := st.CreateAt(ctx, time.Now(), "m")
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range texts {
			if _, err := st.Append(ctx, &s, StoredMessage{Role: "user", Content: x}); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, s.Name)
	}
	// As migration 0010 left them, and as if the step had not run yet.
	if _, err := ws.State.Exec(`UPDATE sessions SET title = ''`); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.State.Exec(`DELETE FROM schema_migrations WHERE name = 'core/` + titlesStep + `'`); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	ws, err = Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st = NewSessions(ws.State, time.Now)
	for i, want := range []string{"call-mom-on-sunday", "call-mom-on-sunday-2", ""} {
		s, err := st.Get(ctx, names[i])
		if err != nil {
			t.Fatal(err)
		}
		if s.Title != want {
			t.Errorf("session %d titled %q, want %q", i, s.Title, want)
		}
	}
	var n int
	if err := ws.State.QueryRow(`SELECT count(*) FROM schema_migrations WHERE name = 'core/` + titlesStep + `'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the step is recorded %d times (%v), want once", n, err)
	}
}
