package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
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
			q := decodeVec(encodeVec(v))
			b.ResetTimer()
			for range b.N {
				best, err := ix.scanVectors(ctx, q, "bench")
				if err != nil || len(best) == 0 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
			b.ReportMetric(float64(n*dims*4)/float64(n)/1e3, "kB-vector/unit")
		})
	}
}
