package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// On a terminal each proposed fact is asked about: accepted ones land in
// MEMORY.md, a rejected one is remembered, and "q" leaves the rest pending.
func TestDistillReviewOnATerminal(t *testing.T) {
	home := ttyWorkspace(t)
	logs := filepath.Join(home, "logs")
	os.MkdirAll(logs, 0o700)
	if err := os.WriteFile(filepath.Join(logs, "2020-03-18.md"), []byte("# 2020-03-18\n\n### 10:00\nThe doctor confirmed I am allergic to penicillin.\nWe moved to Porto; the flat is near the river.\nStarted learning the cello on Mondays.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fact := func(text, quote string, line int) map[string]any {
		return map[string]any{"action": "add", "section": "Health", "text": text, "source": "logs/2020-03-18.md:" + string(rune('0'+line)), "quote": quote}
	}
	body, _ := json.Marshal(map[string]any{
		"items": []any{map[string]any{"text": "Penicillin allergy confirmed.", "source": "logs/2020-03-18.md:4", "quote": "allergic to penicillin"}},
		"facts": []any{
			fact("Allergic to penicillin.", "confirmed I am allergic to penicillin", 4),
			fact("Lives in Porto.", "We moved to Porto", 5),
			fact("Plays the cello.", "learning the cello on Mondays", 6),
		},
	})
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	srv.Script(ollamatest.Text(string(body)))

	var out, errb bytes.Buffer
	streams := &iostreams{In: strings.NewReader("y\nmaybe\nn\nq\n"), Out: &out, Err: &errb, InTTY: true, ErrTTY: true}
	code := run(context.Background(), []string{"agent", "--home", home, "memory", "distill", "month", "--period", "2020-03"}, streams)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	mem, _ := os.ReadFile(filepath.Join(home, "MEMORY.md"))
	if !strings.Contains(string(mem), "- Allergic to penicillin. (logs/2020-03-18.md:4)\n") || strings.Contains(string(mem), "Porto") || strings.Contains(string(mem), "cello") {
		t.Errorf("MEMORY.md:\n%s", mem)
	}
	if n := strings.Count(errb.String(), "accept? [y]es, [n]o (never propose again), [a]ll, [q]uit: "); n != 4 {
		t.Errorf("asked %d times (one answer was not understood):\n%s", n, errb.String())
	}
	// The one left by "q" is still pending and printed; the rejected one is not.
	if !strings.Contains(out.String(), "proposal\t3\tadd\tHealth\tPlays the cello.") || strings.Contains(out.String(), "Porto") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
