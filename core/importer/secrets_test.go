package importer

import (
	"strings"
	"testing"
	"time"
)

// A secret pasted into a conversation elsewhere does not land in the
// workspace with its import: the file (and so the index) holds a marker
// naming its kind, the rest of the words as they were.
func TestImportedSecretsAreReplaced(t *testing.T) {
	at := time.Date(2024, 5, 1, 14, 32, 0, 0, time.UTC)
	c := &Conversation{ID: "c1", Title: "deploy", Origin: ChatGPT, Started: at}
	msgs := []Message{
		{ID: "1", Role: "user", At: at, Text: "Why does this fail? export GITHUB_TOKEN=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"},
		{ID: "2", Role: "assistant", At: at, Text: "Rotate that token: it is now in this chat."},
	}
	out := string(render(c, msgs, 1, time.UTC))
	if strings.Contains(out, "ghp_") || !strings.Contains(out, "Why does this fail? export GITHUB_TOKEN=[secret: github token]\n") {
		t.Errorf("imported file:\n%s", out)
	}
	if !strings.Contains(out, "Rotate that token: it is now in this chat.\n") {
		t.Errorf("ordinary words changed:\n%s", out)
	}
}
