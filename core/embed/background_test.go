package embed_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/embed"
	"agent/index"
)

// Background embeds what is there at once, then what a poke says is new,
// and says when the model fails, once.
func TestBackground(t *testing.T) {
	srv := fake(t)
	ctx, cancel := context.WithCancel(context.Background())
	home := workspace(t, notes)
	ix, _ := open(t, home, "nomic-embed-text")
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	bg, _ := open(t, home, "nomic-embed-text")
	notes := make(chan string, 10)
	poke := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		embed.Background(ctx, bg, poke, func(s string) { notes <- s })
	}()
	next := func() string {
		select {
		case s := <-notes:
			return s
		case <-time.After(30 * time.Second): // a bound on a hang, not a wait for an event
			t.Fatal("no note from Background")
			return ""
		}
	}
	if s := next(); !strings.HasPrefix(s, "embedded ") {
		t.Fatalf("first note %q", s)
	}
	if n, err := ix.EmbedBacklog(ctx); err != nil || n != 0 {
		t.Fatalf("backlog after the first pass: %d %v", n, err)
	}
	os.WriteFile(filepath.Join(home, "logs", "2026-11-23.md"), []byte("# 2026-11-23\n\n## Car\n\nThe automobile needs new tyres.\n"), 0o644)
	if _, err := ix.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	poke <- struct{}{}
	if s := next(); !strings.HasPrefix(s, "embedded 1 chunks") {
		t.Fatalf("after a poke: %q", s)
	}
	hits, err := ix.Search(ctx, "vehicle", index.SearchOptions{K: 1})
	if err != nil || !strings.Contains(hits[0].Text, "automobile") {
		t.Fatalf("search vehicle: %v %v", hits, err)
	}
	srv.Close()
	os.WriteFile(filepath.Join(home, "logs", "2026-11-24.md"), []byte("# 2026-11-24\n\nHerons at the lake.\n"), 0o644)
	if _, err := ix.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	poke <- struct{}{}
	if s := next(); !strings.Contains(s, "embedding stopped") {
		t.Fatalf("with Ollama gone: %q", s)
	}
	poke <- struct{}{} // the same failure again is not said again
	poke <- struct{}{} // taken only once that pass has finished, and said what it would
	cancel()
	<-done
	if len(notes) != 0 {
		t.Fatalf("more notes: %q", <-notes)
	}
}
