//go:build linux

package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"agent/memory"
	"agent/memory/secrets"
)

// Values in the shapes the detector knows, built at run time so that no
// scanner reads this file as holding a secret.
var (
	testAWSKey   = "AKIA" + "Z7QW3RTY5UPL2KXM"
	testKeyBlock = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBkZXZpY2Uta2V5LXRoYXQtaXMtbm90LXJlYWwtYXQtYWxsAAAAAAAA\n-----END OPENSSH " + "PRIVATE KEY-----"
)

// A secret in a read-only notes folder never reaches the index: search, the
// prompt (recall quotes chunks) and the embedder (it embeds chunks) see its
// marker; the file is untouched; the line numbers still point at the file;
// the user is told where, by file and line, never the value.
func TestSourceSecretsIndexedAsMarkers(t *testing.T) {
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD})
	vault := t.TempDir()
	note := "# Servers\n\nThe kingfisher box uses " + testAWSKey + " for backups.\n\n" + testKeyBlock + "\n\n## After\n\nThe heron box is plain.\n"
	write(t, vault, "servers.md", note)
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		t.Fatal(err)
	}
	ix, warns := open(t, home)
	emb := &sentTexts{wordVectors: wordVectors{dims: 8}}
	ix.SetEmbedder(emb)
	reindex(t, ix, false)
	if _, err := ix.Embed(context.Background(), EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(emb.texts) == 0 {
		t.Fatal("nothing was embedded")
	}
	for _, s := range emb.texts {
		if strings.Contains(s, "Z7QW3RTY5UPL2KXM") || strings.Contains(s, "b3BlbnNzaC1rZXkt") {
			t.Errorf("the embedder was sent the secret: %q", s)
		}
	}
	for _, q := range []string{"kingfisher", "heron"} {
		hits := search(t, ix, q, SearchOptions{})
		if len(hits) == 0 {
			t.Fatalf("%s: no hit", q)
		}
		for _, h := range hits {
			if strings.Contains(h.Text, "Z7QW3RTY5UPL2KXM") || strings.Contains(h.Text, "b3BlbnNzaC1rZXkt") || strings.Contains(h.Snippet, "Z7QW3RTY5UPL2KXM") {
				t.Errorf("%s: the secret reached the index: %q", q, h.Text)
			}
		}
	}
	var all []string
	rows, err := ix.db.QueryContext(context.Background(), "SELECT text, start_line, end_line FROM chunks")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	heronLine := 0
	for rows.Next() {
		var text string
		var from, to int
		if err := rows.Scan(&text, &from, &to); err != nil {
			t.Fatal(err)
		}
		all = append(all, text)
		if strings.Contains(text, "heron") {
			heronLine = to
		}
	}
	joined := strings.Join(all, "\n")
	if strings.Contains(joined, testAWSKey) || strings.Contains(joined, "b3BlbnNzaC1rZXkt") {
		t.Errorf("the secret is in the chunks (what the embedder gets): %q", joined)
	}
	if !strings.Contains(joined, secrets.Marker("aws access key")) || !strings.Contains(joined, secrets.Marker("private key")) {
		t.Errorf("no marker in the chunks: %q", joined)
	}
	if want := strings.Count(note, "\n"); heronLine != want {
		t.Errorf("the heron chunk ends at line %d, the file's line is %d (a redacted key block must keep its lines)", heronLine, want)
	}
	if b, _ := os.ReadFile(filepath.Join(vault, "servers.md")); string(b) != note {
		t.Errorf("the note was changed: %q", b)
	}
	msgs := warns.take()
	if !hasWarning(msgs, "vault:servers.md:3", "aws access key") || !hasWarning(msgs, "vault:servers.md:5", "private key") {
		t.Errorf("warnings do not name file:line and kind: %q", msgs)
	}
	for _, m := range msgs {
		if strings.Contains(m, "Z7QW3RTY5UPL2KXM") {
			t.Errorf("a warning shows the value: %q", m)
		}
	}
}

// An index.db written before notes were redacted (schema version 1) still
// holds their secrets in unchanged files' chunks: it is rebuilt, not kept.
func TestIndexOfUnredactedVersionRebuilt(t *testing.T) {
	home := workspace(t, map[string]string{"logs/2026-01-02.md": "# 2026-01-02\n\nThe zeppelin key is " + testAWSKey + ".\n"})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	ix.Close()
	p := filepath.Join(home, FileName)
	execOn(t, p, "UPDATE chunks SET text = replace(text, '"+secrets.Marker("aws access key")+"', '"+testAWSKey+"'); PRAGMA user_version = 1")
	ix, w := open(t, home)
	if hits := search(t, ix, "zeppelin", SearchOptions{}); len(hits) != 1 || strings.Contains(hits[0].Text, testAWSKey) {
		t.Fatalf("after opening the old index: %+v", hits)
	}
	if !hasWarning(w.take(), "schema version 1", "rebuilding it") {
		t.Error("the old index was not rebuilt")
	}
}

// sentTexts is an embedder that keeps every text it is asked to embed.
type sentTexts struct {
	wordVectors
	mu    sync.Mutex
	texts []string
}

func (s *sentTexts) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	s.mu.Lock()
	s.texts = append(s.texts, texts...)
	s.mu.Unlock()
	return s.wordVectors.Embed(ctx, texts)
}
