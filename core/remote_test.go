package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOffMachine(t *testing.T) {
	me, _ := os.Hostname()
	for base, want := range map[string]bool{
		"http://127.0.0.1:11434":        false,
		"http://127.0.0.2:11434":        false,
		"http://[::1]:11434":            false,
		"http://localhost:11434":        false,
		"http://LocalHost.:11434":       false,
		"http://0.0.0.0:11434":          false,
		"http://" + me + ":11434":       false,
		"unix:///run/ollama.sock":       false,
		"http://192.0.2.7:11434":        true,
		"https://gpu.example.com":       true,
		"http://[2001:db8::1]:11434":    true,
		"http://localhost.example.com/": true,
	} {
		if got := OffMachine(base); got != want {
			t.Errorf("OffMachine(%q) = %v, want %v", base, got, want)
		}
	}
}

// A remote server is named once per workspace, server and use; a local one
// never.
func TestSayRemoteOnce(t *testing.T) {
	home := t.TempDir()
	var said []string
	say := func(s string) { said = append(said, s) }
	SayRemote(home, "http://127.0.0.1:11434", RemoteForEmbedding, say)
	if len(said) != 0 {
		t.Fatalf("a local server was named: %q", said)
	}
	for range 2 {
		SayRemote(home, "http://gpu.example.com:11434", RemoteForEmbedding, say)
	}
	if len(said) != 1 || !strings.Contains(said[0], "http://gpu.example.com:11434") || !strings.Contains(said[0], "every note") {
		t.Fatalf("said %q, want the host and what it receives, once", said)
	}
	SayRemote(home, "http://gpu.example.com:11434", RemoteForChat, say)
	SayRemote(home, "http://other.example.com:11434", RemoteForEmbedding, say)
	if len(said) != 3 {
		t.Errorf("another use or another server must be named: %q", said)
	}
	if fi, err := os.Stat(filepath.Join(home, RemoteNoticeFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("marker: %v %v", fi, err)
	}
}
