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
