// Package prompts holds the fixed system prompts. They are compiled into the
// binary with go:embed; no file, flag or environment variable can replace them
// at runtime, which is what lets the rest of the context be untrusted.
package prompts

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
)

//go:embed system.md bootstrap.md
var files embed.FS

// Prompt is one fixed prompt and the hash that identifies its exact text.
type Prompt struct {
	Name string // "system" or "bootstrap"
	Text string
	Hash string // hex SHA-256 of Text
}

// System is the prompt used once the profile exists.
func System() Prompt { return load("system") }

// Bootstrap is the prompt used while the profile is still empty.
func Bootstrap() Prompt { return load("bootstrap") }

func load(name string) Prompt {
	b, err := files.ReadFile(name + ".md")
	if err != nil {
		// The file is embedded at build time; a missing one is a build bug.
		panic("prompts: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return Prompt{Name: name, Text: string(b), Hash: hex.EncodeToString(sum[:])}
}
