package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/embed"
	"agent/core/ollamatest"
)

// A REPL with an embedding model: what a turn writes is embedded after the
// turn (a few chunks at most), so the next recall finds it by meaning; the
// first recall, with nothing embedded yet, is the words' alone, with one
// notice.
func TestRecallEmbedsWhatATurnWrote(t *testing.T) {
	srv := ollamatest.New(t)
	srv.SetModels(ollamatest.Llama32(), ollamatest.NomicEmbed())
	t.Setenv("OLLAMA_HOST", srv.Host())
	ctx := context.Background()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "logs"), 0o755)
	os.WriteFile(filepath.Join(home, "logs", "2026-11-20.md"), []byte("# 2026-11-20\n\nThe stock market fell.\n"), 0o644)
	e, err := embed.New("nomic-embed-text")
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	mem, _, err := OpenRecall(ctx, home, "", nil, e, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.WatchFiles(home); err != nil {
		t.Fatal(err)
	}
	if got, err := mem.Recall(ctx, "kids", 3); err != nil || len(got) != 0 {
		t.Fatalf("before: %v %v", got, err)
	}
	if n := strings.Count(strings.Join(warns, "\n"), "no passage is embedded"); n != 1 {
		t.Fatalf("warnings %q: want one notice that nothing is embedded", warns)
	}
	// The turn writes; the index and the vectors follow in the background.
	os.WriteFile(filepath.Join(home, "logs", "2026-11-21.md"), []byte("# 2026-11-21\n\nPicked up the children from school.\n"), 0o644)
	mem.Wrote()
	got, err := mem.Recall(ctx, "kids", 3)
	if err != nil || len(got) == 0 || !strings.Contains(got[0].Text, "children") || got[0].Query != "meaning" {
		t.Fatalf("after the turn: %+v %v", got, err)
	}
	if n := len(srv.Embeds()); n < 2 {
		t.Fatalf("%d embed requests", n)
	}
}
