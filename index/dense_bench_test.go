package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkVectorScan times the brute-force vector search (scanVectors) over
// AGENT_BENCH_UNITS stored unit vectors (default 20,000) of 100 (GloVe), 384
// (all-minilm) and 768 (nomic-embed-text) dimensions, in a real index.db,
// and reports the time per unit: a workspace's query time is that times its
// paragraphs (ws-M has ~203,000, the 96 MB workspace ~1,000,000). make bench
// prints it (scripts/bench.sh).
func BenchmarkVectorScan(b *testing.B) {
	n := 20000
	if s := os.Getenv("AGENT_BENCH_UNITS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for _, dims := range []int{100, 384, 768} {
		b.Run(fmt.Sprintf("dims=%d", dims), func(b *testing.B) {
			ctx := context.Background()
			home := b.TempDir()
			ix, err := Open(ctx, home, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			if _, err := ix.Reindex(ctx, ReindexOptions{}); err != nil {
				b.Fatal(err)
			}
			tx, err := ix.db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec(sqlVectorSchema); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			v := make([]float32, dims)
			h := make([]byte, 16)
			for i := range n {
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				binary.LittleEndian.PutUint64(h, uint64(i)+1)
				if _, err := tx.Exec(sqlInsertVector, "bench", h, encodeVec(v)); err != nil {
					b.Fatal(err)
				}
				if _, err := tx.Exec(`INSERT INTO vec_units(chunk_id, unit, hash) VALUES (?1, ?2, ?3)`, i/3, i%3, h); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			q := slices.Clone(v)
			normalize(q)
			b.ResetTimer()
			for range b.N {
				best, err := ix.scanVectors(ctx, q, "bench", nil)
				if err != nil || len(best) == 0 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
			b.ReportMetric(float64(n*dims*4)/float64(n)/1e3, "kB-vector/unit")
		})
	}
}

// wordVectors is an Embedder for benchmarks: a text's vector is the sum of
// its words' vectors, each drawn from a generator seeded by the word, so
// texts sharing words point alike and every run embeds the same.
type wordVectors struct{ dims int }

func (w wordVectors) Identity(context.Context) (string, error) {
	return fmt.Sprintf("words/%d", w.dims), nil
}

func (w wordVectors) Name() string { return "words" }

func (w wordVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, w.dims)
		for _, word := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New64a()
			h.Write([]byte(word))
			rng := rand.New(rand.NewPCG(h.Sum64(), 1))
			for j := range v {
				v[j] += float32(rng.NormFloat64())
			}
		}
		out[i] = v
	}
	return out, nil
}

// embeddedCorpus is a workspace of AGENT_BENCH_FILES daily logs (default
// 2,000, a chunk each) holding AGENT_BENCH_UNITS paragraphs (default
// 20,000), indexed and embedded with 100-dimension wordVectors.
func embeddedCorpus(b *testing.B) (*Index, string) {
	n := 20000
	if s := os.Getenv("AGENT_BENCH_UNITS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	home := b.TempDir()
	words := strings.Fields("garden tulip school children rain budget manager boiler noise fence bulbs walk home meeting train ticket lisbon flight dentist cake birthday river kingfisher")
	rng := rand.New(rand.NewPCG(3, 4))
	files := 2000
	if s := os.Getenv("AGENT_BENCH_FILES"); s != "" {
		files, _ = strconv.Atoi(s)
	}
	perFile := max(n/files, 1)
	for f := range files {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# day %d\n", f)
		for range perFile {
			sb.WriteString("\n")
			for range 12 {
				sb.WriteString(words[rng.IntN(len(words))] + " ")
			}
			fmt.Fprintf(&sb, "note%d\n", rng.IntN(1e6))
		}
		p := filepath.Join(home, logsDir, fmt.Sprintf("%04d.md", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ix, err := Open(ctx, home, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	ix.SetEmbedder(wordVectors{dims: 100})
	if _, err := ix.Reindex(ctx, ReindexOptions{}); err != nil {
		b.Fatal(err)
	}
	if st, err := ix.Embed(ctx, EmbedOptions{}); err != nil || st.Left != 0 {
		b.Fatal(st, err)
	}
	return ix, home
}

// BenchmarkFreshSearchAfterEdit times a fresh search by meaning right after
// a note changed, the search that finds the change, updates the index and
// runs its query again (freshQuery), over embeddedCorpus.
func BenchmarkFreshSearchAfterEdit(b *testing.B) {
	ix, home := embeddedCorpus(b)
	ctx := context.Background()
	edited := filepath.Join(home, logsDir, "0000.md")
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		f, err := os.OpenFile(edited, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "\nedit %d garden\n", i)
		f.Close()
		b.StartTimer()
		if _, err := ix.Search(ctx, "tulip bulbs by the fence", SearchOptions{Fresh: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchByMeaning times a search by meaning of an index that is
// up to date, plain and fresh (the quick no-change check), over
// embeddedCorpus (AGENT_BENCH_UNITS=2000 makes the vector scan small
// beside the rest).
func BenchmarkSearchByMeaning(b *testing.B) {
	ix, _ := embeddedCorpus(b)
	ctx := context.Background()
	for _, fresh := range []bool{false, true} {
		b.Run(fmt.Sprintf("fresh=%v", fresh), func(b *testing.B) {
			for range b.N {
				if _, err := ix.Search(ctx, "tulip bulbs by the fence", SearchOptions{Fresh: fresh}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmbedPass times a whole embedding pass over a backlog of 2,000
// chunks (20,000 paragraphs) whose vectors are all stored already: what is
// measured is finding the work, batch by batch, not the model.
func BenchmarkEmbedPass(b *testing.B) {
	ix, _ := embeddedCorpus(b)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		if _, err := ix.db.ExecContext(ctx, `DELETE FROM vec_units`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if st, err := ix.Embed(ctx, EmbedOptions{}); err != nil || st.Left != 0 || st.Embedded != 0 {
			b.Fatal(st, err)
		}
	}
}
