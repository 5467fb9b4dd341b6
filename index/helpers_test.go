package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// warnings collects what the index tells its warn callback.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, s)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.msgs
	w.msgs = nil
	return m
}

// workspace makes a temporary workspace holding files (relative path →
// content) and returns its home.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, body := range files {
		write(t, home, rel, body)
	}
	return home
}

func write(t *testing.T, home, rel, body string) {
	t.Helper()
	p := filepath.Join(home, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// age sets a file's mtime an hour back, out of the racy window, so a test
// sees the ordinary size+mtime path and not the re-hash of fresh files.
func age(t *testing.T, home, rel string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(home, rel), old, old); err != nil {
		t.Fatal(err)
	}
}

func ageAll(t *testing.T, home string) {
	t.Helper()
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(home, p)
			age(t, home, rel)
		}
		return nil
	})
}

func open(t *testing.T, home string) (*Index, *warnings) {
	t.Helper()
	w := &warnings{}
	ix, err := Open(context.Background(), home, w.add)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, w
}

func reindex(t *testing.T, ix *Index, full bool) Stats {
	t.Helper()
	st, err := ix.Reindex(context.Background(), ReindexOptions{Full: full})
	if err != nil {
		t.Fatalf("Reindex(full=%v): %v", full, err)
	}
	return st
}

// search returns the hits' paths and line ranges, "path:start-end", or nil
// when nothing matched.
func search(t *testing.T, ix *Index, q string, opts SearchOptions) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q, opts)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return hits
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func hasWarning(msgs []string, substrs ...string) bool {
	for _, m := range msgs {
		ok := true
		for _, s := range substrs {
			ok = ok && strings.Contains(m, s)
		}
		if ok {
			return true
		}
	}
	return false
}
