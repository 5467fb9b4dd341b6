package embed_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/embed"
	"agent/core/ollamatest"
	"agent/index"
)

// workspace writes logs into a fresh workspace and indexes it.
func workspace(t *testing.T, logs map[string]string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range logs {
		if err := os.WriteFile(filepath.Join(home, "logs", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// open opens home's index with the fake's embedding model, collecting the
// warnings.
func open(t *testing.T, home, model string) (*index.Index, *[]string) {
	t.Helper()
	var warns []string
	ix, err := index.Open(context.Background(), home, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if model != "" {
		e, err := embed.New(model)
		if err != nil {
			t.Fatal(err)
		}
		ix.SetEmbedder(e)
	}
	return ix, &warns
}

func fake(t *testing.T) *ollamatest.Server {
	srv := ollamatest.New(t)
	srv.SetModels(ollamatest.Llama32(), ollamatest.NomicEmbed())
	t.Setenv("OLLAMA_HOST", srv.Host())
	return srv
}

var notes = map[string]string{
	"2026-11-20.md": "# 2026-11-20\n\n## School\n\nPicked up the children from school at four.\n\nThe walk home took longer in the rain.\n",
	"2026-11-21.md": "# 2026-11-21\n\n## Work\n\nMeeting with my manager about the budget.\n\n## Home\n\nThe boiler made a noise again.\n",
	"2026-11-22.md": "# 2026-11-22\n\n## Garden\n\nPlanted tulip bulbs along the fence.\n",
}

// texts counts the texts of embed requests, but for the probe with which
// Identity learns a model's dimensions before its first vector.
func texts(reqs [][]string) (n int, most int) {
	for _, r := range reqs {
		if len(r) == 1 && r[0] == "dimensions" {
			continue
		}
		n += len(r)
		most = max(most, len(r))
	}
	return n, most
}

// The point of it: a question in words the notes do not use finds them by
// meaning, where the words alone find nothing.
func TestSearchFindsByMeaning(t *testing.T) {
	fake(t)
	ctx := context.Background()
	home := workspace(t, notes)
	lex, _ := open(t, home, "")
	if _, err := lex.Reindex(ctx, index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lex.Search(ctx, "kids", index.SearchOptions{}); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("lexical search for kids: %v, want not found", err)
	}
	ix, warns := open(t, home, "nomic-embed-text")
	st, err := ix.Embed(ctx, index.EmbedOptions{})
	if err != nil || st.Chunks == 0 || st.Left != 0 {
		t.Fatalf("embed: %+v, %v", st, err)
	}
	for q, want := range map[string]string{"kids": "children", "my boss": "manager", "heating broke": "boiler"} {
		hits, err := ix.Search(ctx, q, index.SearchOptions{K: 1})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		if !strings.Contains(hits[0].Text, want) || hits[0].Query != "meaning" {
			t.Errorf("search %q: first hit %q (query %q), want the one with %q, found by meaning", q, hits[0].Text, hits[0].Query, want)
		}
	}
	if len(*warns) != 0 {
		t.Errorf("warnings: %q", *warns)
	}
	// A word match still comes first for a query in the notes' own words.
	hits, err := ix.Search(ctx, "tulip bulbs", index.SearchOptions{K: 1})
	if err != nil || !strings.Contains(hits[0].Text, "tulip") {
		t.Fatalf("search tulip bulbs: %v %v", hits, err)
	}
}

// Only new or changed text is sent, in batches; a full rebuild reuses every
// vector; a different model starts over with a notice.
func TestEmbedOnlyWhatIsNew(t *testing.T) {
	srv := fake(t)
	ctx := context.Background()
	logs := map[string]string{}
	for i := range 40 {
		var b strings.Builder
		b.WriteString("# 2026-10-01\n\n## Day\n\n")
		for j := range 3 {
			b.WriteString("Paragraph " + string(rune('a'+j)) + " of note " + strings.Repeat("x", i+1) + ".\n\n")
		}
		logs["2026-10-"+twoDigits(i%28+1)+"-"+twoDigits(i)+".md"] = b.String()
	}
	home := workspace(t, logs)
	ix, warns := open(t, home, "nomic-embed-text")
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	var progress [][2]int
	st, err := ix.Embed(ctx, index.EmbedOptions{Progress: func(d, n int) { progress = append(progress, [2]int{d, n}) }})
	if err != nil {
		t.Fatal(err)
	}
	sent, most := texts(srv.Embeds())
	// Every note's three paragraphs and its heading paragraphs; "## Day"
	// is the same text in all forty, sent once (its first batch) and reused
	// by the chunks of later batches.
	if sent != st.Embedded || most > 32 || len(srv.Embeds()) < 3 {
		t.Fatalf("sent %d texts in %d requests (largest %d), stats %+v", sent, len(srv.Embeds()), most, st)
	}
	if last := progress[len(progress)-1]; last[0] != last[1] || last[0] != st.Chunks {
		t.Errorf("progress ends at %v, chunks %d", last, st.Chunks)
	}
	// Nothing new: nothing sent.
	before := len(srv.Embeds())
	if st, err := ix.Embed(ctx, index.EmbedOptions{}); err != nil || st.Embedded != 0 || st.Chunks != 0 {
		t.Fatalf("second pass: %+v %v", st, err)
	}
	// One file changed: only its new paragraph is sent.
	for name := range logs {
		os.WriteFile(filepath.Join(home, "logs", name), []byte(logs[name]+"A new line about herons.\n"), 0o644)
		break
	}
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Embed(ctx, index.EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	got := srv.Embeds()[before:]
	if len(got) != 1 || len(got[0]) != 1 || !strings.Contains(got[0][0], "herons") {
		t.Fatalf("after one change sent %q", got)
	}
	// A full rebuild writes a new file: the vectors come with it.
	before = len(srv.Embeds())
	if _, err := ix.Reindex(ctx, index.ReindexOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	st, err = ix.Embed(ctx, index.EmbedOptions{})
	if err != nil || st.Embedded != 0 || st.Chunks == 0 || len(srv.Embeds()) != before {
		t.Fatalf("after a full rebuild: %+v %v, %d requests", st, err, len(srv.Embeds())-before)
	}
	// Another model: a notice, and everything again.
	other := ollamatest.NomicEmbed()
	other.Name = "all-minilm:latest"
	srv.SetModels(ollamatest.Llama32(), ollamatest.NomicEmbed(), other)
	ix2, _ := open(t, home, "all-minilm")
	var notices []string
	st2, err := ix2.Embed(ctx, index.EmbedOptions{Notice: func(s string) { notices = append(notices, s) }})
	if err != nil || st2.Embedded != sent+1 || st2.Reused != 3 {
		t.Fatalf("new model: %+v %v, want %d texts", st2, err, sent+1)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "embedding model changed") || !strings.Contains(notices[0], "all-minilm") {
		t.Fatalf("notices %q", notices)
	}
	// The first model now finds vectors of another: words only, said once.
	*warns = nil
	for range 2 {
		if _, err := ix.Search(ctx, "herons", index.SearchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "not nomic-embed-text") {
		t.Fatalf("warnings %q", *warns)
	}
}

func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// Ollama down, or the model missing: the search is the lexical one, with
// one notice, never an error.
func TestSearchFallsBackToWords(t *testing.T) {
	srv := fake(t)
	ctx := context.Background()
	home := workspace(t, notes)
	ix, warns := open(t, home, "nomic-embed-text")
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Embed(ctx, index.EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	lex, _ := open(t, home, "")
	want, err := lex.Search(ctx, "school walk", index.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	missing, mwarns := open(t, home, "no-such-model")
	srv.Close()
	for _, c := range []struct {
		ix    *index.Index
		warns *[]string
		says  string
	}{{ix, warns, "not running"}, {missing, mwarns, "unavailable"}} {
		for range 2 {
			hits, err := c.ix.Search(ctx, "school walk", index.SearchOptions{})
			if err != nil || len(hits) != len(want) || hits[0].Text != want[0].Text || hits[0].Score != want[0].Score {
				t.Fatalf("fallback search: %v %v, want the lexical %v", hits, err, want)
			}
		}
		if len(*c.warns) != 1 || !strings.Contains((*c.warns)[0], c.says) || !strings.Contains((*c.warns)[0], "words only") {
			t.Errorf("warnings %q, want one saying %q", *c.warns, c.says)
		}
	}
}

// Without an embedding model the index is what it was: no table, no call.
func TestNoModelNoChange(t *testing.T) {
	srv := fake(t)
	ctx := context.Background()
	home := workspace(t, notes)
	ix, _ := open(t, home, "")
	if _, err := ix.Reindex(ctx, index.ReindexOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search(ctx, "school", index.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if ix.Embedded(ctx) || len(srv.Embeds()) != 0 {
		t.Fatalf("embedded %v, %d embed requests", ix.Embedded(ctx), len(srv.Embeds()))
	}
	if n, err := ix.EmbedBacklog(ctx); err != nil || n != 0 {
		t.Fatalf("backlog %d %v", n, err)
	}
}
