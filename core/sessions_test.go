package core

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSessionNamesFromTheClockNeverCollide(t *testing.T) {
	ctx := context.Background()
	ws, _, err := Init(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	st := NewSessions(ws.State, func() time.Time { return at })
	var names []string
	for i := 0; i < 3; i++ {
		s, err := st.Create(ctx, "", "m")
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, s.Name)
	}
	if names[0] != "2026-11-22-0930" || names[1] != "2026-11-22-0930-2" || names[2] != "2026-11-22-0930-3" {
		t.Errorf("names %v", names)
	}
	// An explicit name that is taken is an error, not a silent rename;
	// Named finds it instead.
	if _, err := st.Create(ctx, "2026-11-22-0930", "m"); err == nil || !isUnique(err) {
		t.Errorf("explicit duplicate: %v", err)
	}
	s, err := st.Named(ctx, "2026-11-22-0930-2", "m")
	if err != nil || s.Name != "2026-11-22-0930-2" {
		t.Errorf("Named = %v, %v", s.Name, err)
	}
	for _, bad := range []string{"../x", "a b", string(make([]byte, 65))} {
		if _, err := st.Create(ctx, bad, "m"); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("name %q: err = %v", bad, err)
		}
	}
}

// Any number of chats started in one minute get distinct names, also from
// several connections at once (as several processes would), and names a
// user chose that look like suffixes are stepped over, not collided with.
func TestSessionNamesNeverRunOut(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	ws, _, err := Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	clock := func() time.Time { return at }
	st := NewSessions(ws.State, clock)
	for _, taken := range []string{"2026-11-22-0930", "2026-11-22-0930-7", "2026-11-22-0930-9x", "2026-11-22-0930-x"} {
		if _, err := st.Create(ctx, taken, "m"); err != nil {
			t.Fatal(err)
		}
	}
	s, err := st.Create(ctx, "", "m")
	if err != nil || s.Name != "2026-11-22-0930-8" {
		t.Fatalf("after -7 and -9x: %q, %v", s.Name, err)
	}
	// Four workspaces opened on the same files, 60 sessions each, at once.
	const conns, each = 4, 60
	names := make(chan string, conns*each)
	errs := make(chan error, conns*each)
	for c := 0; c < conns; c++ {
		go func() {
			w, err := Open(ctx, home)
			if err != nil {
				errs <- err
				return
			}
			defer w.Close()
			st := NewSessions(w.State, clock)
			for i := 0; i < each; i++ {
				s, err := st.Create(ctx, "", "m")
				if err != nil {
					errs <- err
					continue
				}
				names <- s.Name
			}
		}()
	}
	seen := map[string]bool{}
	for i := 0; i < conns*each; i++ {
		select {
		case err := <-errs:
			t.Fatal(err)
		case n := <-names:
			if seen[n] {
				t.Fatalf("name %q given twice", n)
			}
			seen[n] = true
		}
	}
	if !seen["2026-11-22-0930-248"] {
		t.Errorf("expected suffixes up to -248 (8 + 240), got %d names", len(seen))
	}
}

// PickSession: --continue with nothing to continue is a new start (said
// through started), --session NAME is not created until its first message,
// an invalid name is a usage error, and an existing one is found.
func TestPickSession(t *testing.T) {
	f := newChatFixture(t, true)
	ctx := context.Background()
	s, started, err := f.chat.PickSession(ctx, true, "")
	if err != nil || !started || s.ID != 0 {
		t.Fatalf("continue with none: %+v, %v, %v", s, started, err)
	}
	s, started, err = f.chat.PickSession(ctx, false, "later")
	if err != nil || started || s.ID != 0 || s.Name != "later" {
		t.Fatalf("a new name: %+v, %v, %v", s, started, err)
	}
	if _, err := f.chat.Sessions.Get(ctx, "later"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("the named session was created before any message: %v", err)
	}
	if _, _, err := f.chat.PickSession(ctx, false, "../x"); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("bad name: %v", err)
	}
	made, err := f.chat.StartSession(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.chat.Sessions.Append(ctx, &made, StoredMessage{Role: "user", Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	s, started, err = f.chat.PickSession(ctx, true, "")
	if err != nil || started || s.ID != made.ID {
		t.Fatalf("continue: %+v, %v, %v (want %s)", s, started, err, made.Name)
	}
}
