package core

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A session is titled by its first message's words (slugged, unique among
// titles and names), is found by its title where no session has that name,
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
	add(&a, "user", "When do I fly to Lisbon? The tickets are in my mail")
	add(&a, "assistant", "On the tenth.")
	add(&a, "user", "and back?")
	b, _ := st.CreateAt(ctx, at, "m")
	add(&b, "user", "when do I fly to LISBON")
	add(&b, "assistant", "")
	c, _ := st.CreateAt(ctx, at, "m")
	for s, want := range map[*Session]string{&a: "when-do-i-fly-to", &b: "when-do-i-fly-to-3", &c: "", &e: ""} {
		got, err := st.Find(ctx, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != want {
			t.Errorf("session %s titled %q, want %q", s.Name, got.Title, want)
		}
	}
	if got, err := st.Find(ctx, "when-do-i-fly-to-3"); err != nil || got.Name != b.Name {
		t.Errorf("Find by title = %q, %v; want %s", got.Name, err, b.Name)
	}
	if _, err := st.Get(ctx, "when-do-i-fly-to-3"); !errors.Is(err, ErrNoSession) {
		t.Errorf("Get (a chat's --session) takes a title: %v", err)
	}
	if got, err := st.Find(ctx, "when-do-i-fly-to-2"); err != nil || got.Name != e.Name {
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

// A title is derived from the first message as it stands: a forget that
// rewrote the message leaves no copy of its words in the title, and the
// session is found by its new title.
func TestTitleFollowsTheMessage(t *testing.T) {
	ctx := context.Background()
	ws, _, err := Init(ctx, filepath.Join(t.TempDir(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st := NewSessions(ws.State, time.Now)
	s, err := st.CreateAt(ctx, time.Now(), "m")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, &s, StoredMessage{Role: "user", Content: "Marta is expecting a baby"}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Find(ctx, "marta-is-expecting-a-baby"); err != nil || got.Name != s.Name {
		t.Fatalf("Find by title = %q, %v", got.Name, err)
	}
	if _, err := ws.State.Exec(`UPDATE messages SET content = '[forgotten] is expecting a baby'`); err != nil {
		t.Fatal(err)
	}
	got, err := st.Find(ctx, s.Name)
	if err != nil || got.Title != "forgotten-is-expecting-a-baby" {
		t.Errorf("after the rewrite the title is %q (%v), want forgotten-is-expecting-a-baby", got.Title, err)
	}
	if _, err := st.Find(ctx, "marta-is-expecting-a-baby"); !errors.Is(err, ErrNoSession) {
		t.Errorf("the old title still finds the session: %v", err)
	}
}
