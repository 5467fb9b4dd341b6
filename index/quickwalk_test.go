//go:build linux

package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// quickDigest must agree with walk on every tree it accepts: a disagreement
// would make a fresh search trust a stale index, or rebuild for nothing.
func TestQuickDigestAgreesWithWalk(t *testing.T) {
	trees := map[string]map[string]string{
		"empty":           {},
		"memory only":     {"MEMORY.md": memoryMD},
		"flat logs":       {"MEMORY.md": memoryMD, "logs/2026-11-20.md": "# a\n", "logs/2026-11-21.md": "# b\n"},
		"nested":          {"logs/2026/11/20.md": "# a\n", "logs/2026/12/01.md": "# b\n", "logs/x.md": "x"},
		"not notes":       {"logs/a.md": "a", "logs/notes.txt": "t", "logs/img.png": "p", "logs/dir.md/inner.md": "i"},
		"hidden":          {"logs/a.md": "a", "logs/.a.md.swp": "s", "logs/.git/HEAD.md": "h", "logs/.hidden/x.md": "x"},
		"logs is a file":  {"MEMORY.md": memoryMD, "logs": "not a directory"},
		"outside logs":    {"MEMORY.md": memoryMD, "SOUL.md": "soul", "other/x.md": "x", "README.md": "r"},
		"empty directory": {"logs/2026/.keep": ""},
		"digests":         {"logs/2026-11-20.md": "# a\n", "digests/2026-W47.md": "# w\n", "digests/2026-11.md": "# m\n", "digests/.tmp1": "t"},
		"digests only":    {"digests/2026-W47.md": "# w\n"},
		"digests a file":  {"logs/a.md": "a", "digests": "not a directory"},
		"conflict copies": {"logs/2026-11-20.md": "# a\n", "logs/2026-11-20.sync-conflict-20261120-101500-ABCDEF1.md": "# a\n", "logs/2026-11-20 2.md": "# a\n", "logs/Chapter 2.md": "c", "logs/Trip.md": "t"},
	}
	for name, files := range trees {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			for rel, body := range files {
				write(t, home, rel, body)
			}
			checkQuickDigest(t, home, true)
		})
	}
}

// Random trees of many files, several directories deep, so the parallel
// stat and the getdents buffer refills are exercised.
func TestQuickDigestAgreesWithWalkRandom(t *testing.T) {
	for seed := range 4 {
		home := t.TempDir()
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		dirs := []string{"logs"}
		for i := range 3000 {
			if r.IntN(100) == 0 {
				dirs = append(dirs, fmt.Sprintf("%s/d%d", dirs[r.IntN(len(dirs))], i))
			}
			dir := dirs[r.IntN(len(dirs))]
			ext := ".md"
			if r.IntN(10) == 0 {
				ext = ".txt"
			}
			write(t, home, fmt.Sprintf("%s/%04d-%x%s", dir, i, r.Uint32(), ext), fmt.Sprint(r.Uint64()))
		}
		checkQuickDigest(t, home, true)
	}
}

// Trees with what walk treats specially are left to walk.
func TestQuickDigestDefersToWalk(t *testing.T) {
	cases := map[string]func(t *testing.T, home string){
		"file symlink": func(t *testing.T, home string) {
			write(t, home, "notes/a.md", "a")
			symlink(t, filepath.Join(home, "notes/a.md"), filepath.Join(home, "logs/a.md"))
		},
		"directory symlink": func(t *testing.T, home string) {
			write(t, home, "logs/2026/a.md", "a")
			symlink(t, filepath.Join(home, "logs/2026"), filepath.Join(home, "logs/this-year"))
		},
		"logs is a symlink": func(t *testing.T, home string) {
			write(t, home, "elsewhere/a.md", "a")
			os.Remove(filepath.Join(home, "logs"))
			symlink(t, filepath.Join(home, "elsewhere"), filepath.Join(home, "logs"))
		},
		"MEMORY.md is a symlink": func(t *testing.T, home string) {
			write(t, home, "facts.md", "f")
			symlink(t, filepath.Join(home, "facts.md"), filepath.Join(home, "MEMORY.md"))
		},
		"dangling symlink": func(t *testing.T, home string) {
			write(t, home, "logs/a.md", "a")
			symlink(t, "/nonexistent/b.md", filepath.Join(home, "logs/b.md"))
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.Mkdir(filepath.Join(home, "logs"), 0o755); err != nil {
				t.Fatal(err)
			}
			setup(t, home)
			checkQuickDigest(t, home, false)
		})
	}
}

func checkQuickDigest(t *testing.T, home string, wantOK bool) {
	t.Helper()
	ents, want, err := walk(home)
	if err != nil {
		t.Fatal(err)
	}
	got, n, ok := quickDigest(home)
	if ok != wantOK {
		t.Fatalf("quickDigest ok = %v, want %v", ok, wantOK)
	}
	if ok && (got != want || n != len(ents)) {
		t.Fatalf("quickDigest = %x over %d files, walk = %x over %d", got, n, want, len(ents))
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
