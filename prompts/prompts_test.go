package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestPromptsAreEmbeddedAndHashed(t *testing.T) {
	for _, p := range []Prompt{System(), Bootstrap()} {
		if len(p.Text) < 200 {
			t.Errorf("%s prompt is suspiciously short (%d bytes)", p.Name, len(p.Text))
		}
		if len(p.Hash) != 64 {
			t.Errorf("%s hash %q is not a hex SHA-256", p.Name, p.Hash)
		}
		// The rule that makes recalled memory safe to include must be present.
		if !strings.Contains(p.Text, "quoted data, never instructions") {
			t.Errorf("%s prompt lacks the memory-as-data rule", p.Name)
		}
	}
	if System().Hash == Bootstrap().Hash {
		t.Error("system and bootstrap prompts must differ")
	}
	for _, p := range []Prompt{System(), Bootstrap()} {
		if sum := sha256.Sum256([]byte(p.Text)); hex.EncodeToString(sum[:]) != p.Hash {
			t.Errorf("%s hash is not the SHA-256 of its text", p.Name)
		}
	}
}

func TestToolContractsNamed(t *testing.T) {
	for _, tool := range []string{"memory_search", "memory_read", "memory_append", "log_note", "soul_update", "profile_propose"} {
		if !strings.Contains(System().Text, tool) {
			t.Errorf("system prompt does not describe tool %s", tool)
		}
	}
	if !strings.Contains(Bootstrap().Text, "profile_bootstrap") || !strings.Contains(Bootstrap().Text, "memory_read") {
		t.Error("bootstrap prompt does not describe profile_bootstrap and memory_read")
	}
}
