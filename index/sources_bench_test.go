package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"agent/memory"
)

// BenchmarkFreshSearchSourceGone times a fresh search of an up-to-date
// index of 5,000 daily logs whose one source folder is gone (an unmounted
// disk), beside the same search with the folder there: the two should cost
// alike.
func BenchmarkFreshSearchSourceGone(b *testing.B) {
	ctx := context.Background()
	home := b.TempDir()
	for i := range 5000 {
		p := filepath.Join(home, logsDir, fmt.Sprintf("%02d", i/100), fmt.Sprintf("%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "# day %d\n\nA walk by the river, note %d.\n", i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	vault := b.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "birds.md"), []byte("# Birds\n\nA kingfisher.\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		b.Fatal(err)
	}
	ix, err := Open(ctx, home, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for _, gone := range []bool{false, true} {
		if gone {
			if err := os.Rename(vault, vault+"-away"); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := ix.Reindex(ctx, ReindexOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("gone=%v", gone), func(b *testing.B) {
			for range b.N {
				if _, err := ix.Search(ctx, "kingfisher", SearchOptions{Fresh: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
