package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"agent/core"
	"agent/core/embed"
	"agent/core/ollamatest"
	"agent/index"
)

// Doctor's embeddings line names the model, its dimensions and how much
// of the index has vectors, for the price of one embedding request.
func TestDoctorEmbeddings(t *testing.T) {
	ctx := context.Background()
	home := doctorHome(t)
	srv := ollamatest.New(t)
	srv.SetModels(ollamatest.Llama32(), ollamatest.NomicEmbed())
	t.Setenv("OLLAMA_HOST", srv.Host())
	newEmbedder := func(name string) *embed.Ollama {
		e, err := embed.New(name)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ix, err := index.Open(ctx, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sum, err := ix.Summary(ctx)
	if err != nil || sum.Chunks == 0 {
		t.Fatalf("summary %+v %v", sum, err)
	}
	all := sum.Chunks
	detail := func(done int) *regexp.Regexp {
		return regexp.MustCompile(`^nomic-embed-text:latest@[0-9a-f]{12}/256, 256 dimensions; ` + itoa(done) + ` of ` + itoa(all) + ` chunks? embedded$`)
	}

	c := core.DoctorEmbeddings(ctx, home, newEmbedder("nomic-embed-text"))
	if !c.OK || !detail(0).MatchString(c.Detail) || c.Fix == "" {
		t.Errorf("before embedding: %+v", c)
	}
	if n := len(srv.Embeds()); n != 1 {
		t.Errorf("%d embedding requests, want 1", n)
	}

	ix.SetEmbedder(newEmbedder("nomic-embed-text"))
	if _, err := ix.Embed(ctx, index.EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Embeds())
	c = core.DoctorEmbeddings(ctx, home, newEmbedder("nomic-embed-text"))
	if !c.OK || !detail(all).MatchString(c.Detail) || c.Fix != "" {
		t.Errorf("after embedding: %+v", c)
	}
	if n := len(srv.Embeds()) - before; n != 1 {
		t.Errorf("%d embedding requests, want 1", n)
	}

	c = core.DoctorEmbeddings(ctx, home, newEmbedder("all-minilm"))
	if c.OK || !regexp.MustCompile(`^all-minilm:latest: .*not installed`).MatchString(c.Detail) || c.Fix != "ollama pull all-minilm:latest (or unset AGENT_EMBED_MODEL; search works by words alone)" {
		t.Errorf("a model not pulled: %+v", c)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// BenchmarkDoctorEmbeddings times doctor's embeddings line against the
// fake Ollama for a workspace of 5,000 daily logs, indexed.
func BenchmarkDoctorEmbeddings(b *testing.B) {
	ctx := context.Background()
	home := b.TempDir()
	for i := range 5000 {
		p := filepath.Join(home, "logs", fmt.Sprintf("%02d", i/100), fmt.Sprintf("%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "# day %d\n\nA walk by the river, note %d.\n", i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ix, err := index.Open(ctx, home, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		b.Fatal(err)
	}
	ix.Close()
	srv := ollamatest.New(b)
	srv.SetModels(ollamatest.NomicEmbed())
	b.Setenv("OLLAMA_HOST", srv.Host())
	b.ResetTimer()
	for range b.N {
		e, err := embed.New("nomic-embed-text")
		if err != nil {
			b.Fatal(err)
		}
		if c := core.DoctorEmbeddings(ctx, home, e); !c.OK {
			b.Fatal(c)
		}
	}
}
