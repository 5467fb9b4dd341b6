package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// offMachineAddr is an address of this machine that is not loopback, so a
// fake Ollama listening there stands for a server elsewhere.
func offMachineAddr(t *testing.T) string {
	t.Helper()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("no address here but loopback to stand for a remote server")
	return ""
}

// An Ollama server off this machine (OLLAMA_HOST) is named on stderr, with
// what it receives, the first time each use sends it something, and not
// at every run after; a local one never is.
func TestRemoteOllamaNamedOnce(t *testing.T) {
	srv, err := ollamatest.Start(offMachineAddr(t) + ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetModels(ollamatest.Llama32(), ollamatest.NomicEmbed())
	t.Setenv("OLLAMA_HOST", srv.Host())
	home := filepath.Join(t.TempDir(), "ws")
	if code, _, stderr := runDoctorCmd(t, false, "--home", home, "init"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	if code, _, stderr := runDoctorCmd(t, false, "--home", home, "log", "the kingfisher came back"); code != 0 {
		t.Fatalf("log: %s", stderr)
	}
	for i := range 2 {
		code, _, stderr := runDoctorCmd(t, false, "--home", home, "--embed-model", "nomic-embed-text", "memory", "reindex")
		said := strings.Count(stderr, "is not on this machine")
		if code != 0 || (i == 0) != (said == 1) || said > 1 || i == 0 && (!strings.Contains(stderr, srv.Host()) || !strings.Contains(stderr, "every note")) {
			t.Errorf("reindex %d: exit %d, said %d times:\n%s", i, code, said, stderr)
		}
	}
	if len(srv.Embeds()) == 0 {
		t.Fatal("nothing was embedded: the test did not send notes")
	}
	srv.Script(ollamatest.Text("hello"), ollamatest.Text("hello again"))
	for i := range 2 {
		code, _, stderr := runDoctorCmd(t, false, "--home", home, "chat", "hi")
		said := strings.Count(stderr, "is not on this machine")
		if code != 0 || (i == 0) != (said == 1) || said > 1 || i == 0 && !strings.Contains(stderr, "the conversation") {
			t.Errorf("chat %d: exit %d, said %d times:\n%s", i, code, said, stderr)
		}
	}
}
