package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkSecureDelete times the incremental update after 20 logs lost a
// paragraph, on a real workspace (AGENT_BENCH_WS, e.g. ws-M unpacked;
// skipped without it), with each way of leaving no deleted bytes behind:
// none (the old behaviour), the secure_delete pragma, FTS5's secure-delete
// too (what ships), and a VACUUM after the update instead.
func BenchmarkSecureDelete(b *testing.B) {
	src := os.Getenv("AGENT_BENCH_WS")
	if src == "" {
		b.Skip("AGENT_BENCH_WS not set")
	}
	home := filepath.Join(b.TempDir(), "ws")
	if out, err := exec.Command("cp", "-r", src, home).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	ctx := context.Background()
	ix, err := Open(ctx, home, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Reindex(ctx, ReindexOptions{Full: true}); err != nil {
		b.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "*.md"))
	logs = logs[:20]
	orig := make([][]byte, len(logs))
	for i, f := range logs {
		orig[i], _ = os.ReadFile(f)
	}
	set := func(pragma, fts int) {
		if _, err := ix.db.Exec(fmt.Sprintf("PRAGMA secure_delete = %d; INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('secure-delete', %d)", pragma, fts)); err != nil {
			b.Fatal(err)
		}
	}
	edit := func(n int) {
		for i, f := range logs {
			os.WriteFile(f, append(append([]byte{}, orig[i]...), fmt.Sprintf("\n\nThe secret is Zq7Vortex%d-%d.\n", n, i)...), 0o644)
		}
		if _, err := ix.Reindex(ctx, ReindexOptions{}); err != nil {
			b.Fatal(err)
		}
		for i, f := range logs {
			os.WriteFile(f, orig[i], 0o644)
		}
	}
	for _, v := range []struct {
		name        string
		pragma, fts int
		vacuum      bool
	}{{"none", 0, 0, false}, {"pragma", 1, 0, false}, {"pragma+fts5", 1, 1, false}, {"vacuum", 0, 0, true}} {
		b.Run(v.name, func(b *testing.B) {
			// A fresh file each time: leaks are counted from a clean start.
			if _, err := ix.Reindex(ctx, ReindexOptions{Full: true}); err != nil {
				b.Fatal(err)
			}
			set(v.pragma, v.fts)
			for n := 0; n < b.N; n++ {
				b.StopTimer()
				edit(n) // the secret goes in; the timed update takes it out
				b.StartTimer()
				if _, err := ix.Reindex(ctx, ReindexOptions{}); err != nil {
					b.Fatal(err)
				}
				if v.vacuum {
					if _, err := ix.db.Exec("VACUUM"); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			// leaks: how many of the removed secrets' bytes index.db still holds.
			data, _ := os.ReadFile(filepath.Join(home, FileName))
			b.ReportMetric(float64(bytes.Count(bytes.ToLower(data), []byte("zq7vortex"))), "leaks")
		})
	}
}
