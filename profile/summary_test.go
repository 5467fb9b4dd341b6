package profile

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if got := Summary(nil); got != "" {
		t.Fatalf("Summary(nil) = %q, want empty", got)
	}
	// A typical profile: every fixed key and five preferences, set in an
	// order unlike the rendered one.
	for _, kv := range [][2]string{
		{"user.pref.units", "metric"},
		{"user.location", "Berlin, Germany"},
		{"agent.style", "concise, warm, a little dry; asks before assuming"},
		{"user.name", "Igor"},
		{"agent.name", "Atlas"},
		{"user.pref.coffee", "black, no sugar"},
		{"agent.role", "personal research assistant and note keeper"},
		{"user.timezone", "Europe/Berlin"},
		{"user.language", "English (British spelling)"},
		{"user.pref.meetings", "never before 10:00"},
		{"agent.pref.emoji", "rarely"},
		{"user.pref.summaries", "bullet points, at most five"},
	} {
		mustSet(t, s, kv[0], kv[1])
	}
	recs, err := s.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := Summary(recs)
	want := strings.Join([]string{
		"Agent — name: Atlas; role: personal research assistant and note keeper; style: concise, warm, a little dry; asks before assuming",
		"Agent preferences — emoji: rarely",
		"User — name: Igor; timezone: Europe/Berlin; language: English (British spelling); location: Berlin, Germany",
		"User preferences — coffee: black, no sugar; meetings: never before 10:00; summaries: bullet points, at most five; units: metric",
	}, "\n")
	if got != want {
		t.Fatalf("Summary =\n%s\nwant\n%s", got, want)
	}
	// Well under 200 tokens: at ~4 characters a token, 800 characters.
	if len(got) >= 800 {
		t.Fatalf("typical summary is %d bytes, want well under 800", len(got))
	}
	t.Logf("typical summary: %d bytes, ~%d tokens", len(got), len(got)/4)
}

// TestSummaryKeepsUnknownKeys: a key written by a newer agent still reaches
// the prompt instead of vanishing.
func TestSummaryKeepsUnknownKeys(t *testing.T) {
	got := Summary([]Record{
		{Key: "user.pronouns", Scope: "user", Value: "he/him"},
		{Key: "user.name", Scope: "user", Value: "Igor"},
	})
	if want := "User — name: Igor; pronouns: he/him"; got != want {
		t.Fatalf("Summary = %q, want %q", got, want)
	}
}

// BenchmarkSummary is the cost every chat turn pays to render the profile
// layer from state.db.
func BenchmarkSummary(b *testing.B) {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(b.TempDir(), "state.db")+"?mode=rwc&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	body, _ := fs.ReadFile(Migrations, "migrations/0001_init.sql")
	if _, err := db.Exec(string(body)); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s := NewStore(db, nil)
	for _, k := range []string{"agent.name", "agent.role", "user.name", "user.timezone", "user.pref.a", "user.pref.b"} {
		v := "UTC"
		if k != "user.timezone" {
			v = "some value for " + k
		}
		if _, err := s.Set(ctx, ByUser("bench"), k, v); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		recs, err := s.All(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if Summary(recs) == "" {
			b.Fatal("empty summary")
		}
	}
}
