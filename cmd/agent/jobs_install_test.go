package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runAnswering runs the CLI as on a terminal, answering its question.
func runAnswering(t *testing.T, answer string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	streams := &iostreams{In: strings.NewReader(answer), Out: &out, Err: &errb, InTTY: true, OutTTY: true, ErrTTY: true}
	code = run(context.Background(), append([]string{"agent"}, args...), streams)
	return code, out.String(), errb.String()
}

// jobs install --write writes this workspace's units, private, only after
// a yes; a second workspace gets units of its own beside the first's; a
// timer from before units were named per workspace is pointed out, not
// touched. (No systemctl on PATH: the command says how to start it.)
func TestJobsInstallWrite(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("HOME", filepath.Join(dir, "userhome"))
	t.Setenv("PATH", filepath.Join(dir, "nobin"))
	t.Setenv("OLLAMA_HOST", "http://gpu-box:11434")
	cfg, err := os.UserConfigDir() // XDG_CONFIG_HOME here; ~/Library/Application Support on macOS
	if err != nil {
		t.Fatal(err)
	}
	units := filepath.Join(cfg, "systemd", "user")
	one, two := filepath.Join(dir, "ws one"), filepath.Join(dir, "ws-two")
	for _, home := range []string{one, two} {
		if code, _, stderr := runTTY(t, false, "--home", home, "--quiet", "init"); code != 0 {
			t.Fatal(stderr)
		}
	}
	code, _, stderr := runAnswering(t, "n\n", "--home", one, "jobs", "install", "--write")
	if code != 1 || !strings.Contains(stderr, "nothing written") {
		t.Fatalf("a no: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(units); !os.IsNotExist(err) {
		t.Fatalf("a no wrote something: %v", err)
	}
	if err := os.MkdirAll(units, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(units, "agent-tick.timer"), []byte("[Timer]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, home := range []string{one, two} {
		code, _, stderr := runAnswering(t, "y\n", "--home", home, "--model", "qwen2.5:7b", "jobs", "install", "--write")
		if code != 0 || !strings.Contains(stderr, "start it with: systemctl --user daemon-reload && systemctl --user enable --now agent-tick-") {
			t.Fatalf("--write for %s: exit %d, %q", home, code, stderr)
		}
		if !strings.Contains(stderr, "agent-tick.timer from an earlier install also runs a tick") {
			t.Errorf("the earlier timer is not pointed out: %q", stderr)
		}
	}
	services, _ := filepath.Glob(filepath.Join(units, "agent-tick-*.service"))
	timers, _ := filepath.Glob(filepath.Join(units, "agent-tick-*.timer"))
	if len(services) != 2 || len(timers) != 2 {
		t.Fatalf("two workspaces wrote %q and %q", services, timers)
	}
	for _, f := range append(services, timers...) {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", f, st.Mode(), err)
		}
	}
	var execs []string
	for _, f := range services {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "ExecStart=") {
				execs = append(execs, l)
			}
		}
		if !strings.Contains(string(b), "Environment=\"OLLAMA_HOST=http://gpu-box:11434\"\n") {
			t.Errorf("%s lacks OLLAMA_HOST:\n%s", f, b)
		}
	}
	joined := strings.Join(execs, "\n")
	if !strings.Contains(joined, `--home "`+one+`" --model qwen2.5:7b --quiet jobs tick`) ||
		!strings.Contains(joined, "--home "+two+" --model qwen2.5:7b --quiet jobs tick") {
		t.Errorf("ExecStart lines:\n%s", joined)
	}
	if b, _ := os.ReadFile(filepath.Join(units, "agent-tick.timer")); string(b) != "[Timer]\n" {
		t.Errorf("the earlier timer was changed: %q", b)
	}
}
