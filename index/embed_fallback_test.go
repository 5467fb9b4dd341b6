package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"agent/index"
)

// conceptVectors is an embedding model in miniature: a text's vector counts
// the concepts its words belong to, so "flowers" lands near "tulip bulbs"
// though no word is shared. Its identity carries a version, so that two of
// them are two models; down makes every call fail, as a stopped Ollama does.
type conceptVectors struct {
	version string
	mu      sync.Mutex
	down    error
	sent    []string
}

var concepts = map[string]int{
	"children": 0, "school": 0, "kids": 0, "walk": 0,
	"tulip": 1, "bulbs": 1, "fence": 1, "planted": 1, "flowers": 1, "garden": 1,
	"boiler": 2, "noise": 2, "heating": 2,
	"budget": 3, "manager": 3, "meeting": 3, "money": 3,
}

func (c *conceptVectors) Identity(context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down != nil {
		return "", c.down
	}
	return "concepts@" + c.version, nil
}

func (c *conceptVectors) Name() string { return "concepts" }

func (c *conceptVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down != nil {
		return nil, c.down
	}
	c.sent = append(c.sent, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 5)
		v[4] = 0.1 // no text is the zero vector
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			if k, ok := concepts[w]; ok {
				v[k]++
			}
		}
		out[i] = v
	}
	return out, nil
}

func (c *conceptVectors) texts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sent)
}

var conceptNotes = map[string]string{
	"logs/2026-11-20.md": "# 2026-11-20\n\n## School\n\nPicked up the children from school at four.\n\nThe walk home took longer in the rain.\n",
	"logs/2026-11-21.md": "# 2026-11-21\n\n## Work\n\nMeeting with my manager about the budget.\n\n## Home\n\nThe boiler made a noise again.\n",
	"logs/2026-11-22.md": "# 2026-11-22\n\n## Garden\n\nPlanted tulip bulbs along the fence.\n",
}

// embedWorkspace writes the notes into a fresh workspace.
func embedWorkspace(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for rel, text := range conceptNotes {
		p := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// openWith opens home's index with e (nil: none), collecting its warnings.
func openWith(t *testing.T, home string, e index.Embedder) (*index.Index, *[]string) {
	t.Helper()
	var mu sync.Mutex
	warns := &[]string{}
	ix, err := index.Open(context.Background(), home, func(w string) {
		mu.Lock()
		*warns = append(*warns, w)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if e != nil {
		ix.SetEmbedder(e)
	}
	if _, err := ix.Reindex(context.Background(), index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	return ix, warns
}

func texts(hits []index.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d %q %.6f", h.Path, h.StartLine, h.Query, h.Score))
	}
	return out
}

// With the embedding model unavailable (Ollama stopped, the model removed)
// a search is the lexical one, hit for hit and score for score, with one
// notice saying so, never an error; once the model is back, meaning counts
// again.
func TestSearchFallsBackToWordsWhenTheModelIsDown(t *testing.T) {
	ctx := context.Background()
	home := embedWorkspace(t)
	e := &conceptVectors{version: "1"}
	ix, warns := openWith(t, home, e)
	if _, err := ix.Embed(ctx, index.EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	lex, _ := openWith(t, home, nil)

	// The model up: "flowers" finds the tulips by meaning, where words
	// find nothing, so the fallback below is a change of behaviour.
	hits, err := ix.Search(ctx, "flowers", index.SearchOptions{})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "tulip") {
		t.Fatalf("by meaning: %v %v, want the tulips", texts(hits), err)
	}
	if lexHits, err := lex.Search(ctx, "flowers", index.SearchOptions{}); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("words alone found %v (%v) for flowers; the test needs a query only meaning answers", texts(lexHits), err)
	}

	e.mu.Lock()
	e.down = errors.New("connection refused")
	e.mu.Unlock()
	*warns = nil
	for _, q := range []string{"school walk", "boiler", "school walk"} {
		want, err := lex.Search(ctx, q, index.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ix.Search(ctx, q, index.SearchOptions{})
		if err != nil {
			t.Fatalf("%q with the model down: %v", q, err)
		}
		if g, w := strings.Join(texts(got), "\n"), strings.Join(texts(want), "\n"); g != w || len(want) == 0 {
			t.Errorf("%q with the model down:\n%s\nwant the lexical\n%s", q, g, w)
		}
	}
	if hits, err := ix.Search(ctx, "flowers", index.SearchOptions{}); !errors.Is(err, index.ErrNotFound) || len(hits) != 0 {
		t.Errorf("flowers with the model down: %v %v, want nothing (words only)", texts(hits), err)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "words only") || !strings.Contains((*warns)[0], "connection refused") {
		t.Errorf("warnings %q, want one saying the search is by words only, and why", *warns)
	}

	// A new Index (the next process) with the model back uses it again.
	e.mu.Lock()
	e.down = nil
	e.mu.Unlock()
	again, _ := openWith(t, home, e)
	if hits, err := again.Search(ctx, "flowers", index.SearchOptions{}); err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "tulip") {
		t.Errorf("the model back: %v %v, want the tulips by meaning", texts(hits), err)
	}
}

// Another embedding model (or new weights under the same name) embeds every
// passage again, with a notice, and its vectors replace the old ones: a
// search with the old model is by words only, said once, never a mix of
// the two models' cosines; with the new one, by meaning. Switching back
// embeds everything again.
func TestEmbedAgainOnModelChange(t *testing.T) {
	ctx := context.Background()
	home := embedWorkspace(t)
	v1 := &conceptVectors{version: "1"}
	ix1, warns1 := openWith(t, home, v1)
	st, err := ix1.Embed(ctx, index.EmbedOptions{Notice: func(s string) { t.Errorf("a notice on the first embedding: %s", s) }})
	if err != nil || st.Chunks == 0 || st.Left != 0 {
		t.Fatalf("first pass: %+v %v", st, err)
	}
	all := v1.texts()
	if all == 0 {
		t.Fatal("nothing was embedded")
	}
	if st, err := ix1.Embed(ctx, index.EmbedOptions{}); err != nil || st.Chunks != 0 || v1.texts() != all {
		t.Fatalf("second pass with the same model: %+v %v, %d texts sent", st, err, v1.texts()-all)
	}

	v2 := &conceptVectors{version: "2"}
	ix2, warns2 := openWith(t, home, v2)
	var notices []string
	st, err = ix2.Embed(ctx, index.EmbedOptions{Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if v2.texts() != all || st.Left != 0 {
		t.Errorf("new model: %d texts sent (%+v), want all %d again", v2.texts(), st, all)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "concepts@1") || !strings.Contains(notices[0], "concepts@2") {
		t.Errorf("notices %q, want one naming both models", notices)
	}

	// The old model's search: words only, said once.
	lex, _ := openWith(t, home, nil)
	*warns1 = nil
	for range 2 {
		want, _ := lex.Search(ctx, "budget", index.SearchOptions{})
		got, err := ix1.Search(ctx, "budget", index.SearchOptions{})
		if err != nil || strings.Join(texts(got), "\n") != strings.Join(texts(want), "\n") {
			t.Errorf("old model after the change: %v %v, want the lexical %v", texts(got), err, texts(want))
		}
	}
	if len(*warns1) != 1 || !strings.Contains((*warns1)[0], "concepts@2") || !strings.Contains((*warns1)[0], "words only") {
		t.Errorf("old model's warnings %q, want one", *warns1)
	}
	// The new model's search: by meaning, without a word.
	if hits, err := ix2.Search(ctx, "flowers", index.SearchOptions{}); err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "tulip") {
		t.Errorf("new model: %v %v, want the tulips by meaning", texts(hits), err)
	}
	if len(*warns2) != 0 {
		t.Errorf("new model's warnings %q", *warns2)
	}

	// Back to the first model: its vectors were replaced, so all again.
	back := &conceptVectors{version: "1"}
	ix3, _ := openWith(t, home, back)
	notices = nil
	if _, err := ix3.Embed(ctx, index.EmbedOptions{Notice: func(s string) { notices = append(notices, s) }}); err != nil {
		t.Fatal(err)
	}
	if back.texts() != all || len(notices) != 1 {
		t.Errorf("back to the first model: %d texts sent, %d notices; want %d and 1", back.texts(), len(notices), all)
	}
}
