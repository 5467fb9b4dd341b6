package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A secret pasted into a conversation elsewhere does not land in the
// workspace with its import: not in the words, the title (the file's name,
// heading and front matter) or the names of what a message carried; the
// file (and so the index) holds a marker naming its kind, the rest of the
// words as they were.
func TestImportedSecretsAreReplaced(t *testing.T) {
	const token = "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"
	export := `[{"uuid": "c1", "name": "deploy ` + token + `", "created_at": "2024-05-01T14:32:00Z",
	  "chat_messages": [
	    {"uuid": "1", "sender": "human", "created_at": "2024-05-01T14:32:00Z",
	     "text": "Why does this fail? export GITHUB_TOKEN=` + token + `",
	     "attachments": [{"file_name": "env-` + token + `.txt", "extracted_content": "x"}]},
	    {"uuid": "2", "sender": "assistant", "created_at": "2024-05-01T14:33:00Z",
	     "text": "Rotate that token: it is now in this chat."}]}]`
	file := filepath.Join(t.TempDir(), "conversations.json")
	if err := os.WriteFile(file, []byte(export), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := ReadExport(file, Claude)
	if err != nil || len(p.Conversations) != 1 {
		t.Fatalf("%v %+v", err, p)
	}
	c := p.Conversations[0]
	out := string(render(&c, c.Messages, 1, time.UTC))
	if strings.Contains(out, "ghp_") || strings.Contains(c.Title, "ghp_") {
		t.Errorf("the token is in the imported file:\n%s", out)
	}
	if !strings.Contains(out, "Why does this fail? export GITHUB_TOKEN=[secret: github token]\n") {
		t.Errorf("no marker in its place:\n%s", out)
	}
	if !strings.Contains(out, "Rotate that token: it is now in this chat.\n") {
		t.Errorf("ordinary words changed:\n%s", out)
	}
}
