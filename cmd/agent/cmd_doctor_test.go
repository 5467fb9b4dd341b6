package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// runDoctorCmd runs the real command line with buffers for streams.
func runDoctorCmd(t *testing.T, tty bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	streams := &iostreams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: tty}
	code = run(context.Background(), append([]string{"agent"}, args...), streams)
	return code, out.String(), errb.String()
}

// doctorReady is a workspace with its index built, and a fake Ollama.
func doctorReady(t *testing.T) (string, *ollamatest.Server) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "ws")
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	for _, args := range [][]string{{"--home", home, "init"}, {"--home", home, "memory", "reindex"}} {
		if code, _, stderr := runDoctorCmd(t, false, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	return home, srv
}

func TestDoctorExitCodes(t *testing.T) {
	home, srv := doctorReady(t)

	code, stdout, stderr := runDoctorCmd(t, false, "--home", home, "doctor")
	if code != 0 || stderr != "" {
		t.Fatalf("all ok: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("want 11 tab-separated records, got:\n%s", stdout)
	}
	for _, l := range lines {
		if f := strings.Split(l, "\t"); len(f) != 4 || f[0] != "ok" || f[3] != "" {
			t.Errorf("record %q: want ok<TAB>name<TAB>detail<TAB>(no fix)", l)
		}
	}
	if !strings.Contains(stdout, "ok\tmodel\tllama3.2:latest, context length 131072") {
		t.Errorf("model line missing:\n%s", stdout)
	}

	// The model is not installed: exit 4, the fix says what to pull.
	code, stdout, stderr = runDoctorCmd(t, false, "--home", home, "--model", "mistral", "doctor")
	if code != 4 {
		t.Errorf("model missing: exit %d, want 4", code)
	}
	if !strings.Contains(stdout, "fail\tmodel\tmistral:latest not installed\tollama pull mistral\n") {
		t.Errorf("model missing: stdout\n%s", stdout)
	}
	if stderr != "agent: doctor: 1 of 11 checks failed (Ollama or the model)\n" {
		t.Errorf("model missing: stderr %q", stderr)
	}

	// --json carries the same verdict, and the exit code stays 4.
	code, stdout, _ = runDoctorCmd(t, false, "--home", home, "--model", "mistral", "doctor", "--json")
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name, Detail, Fix string
			OK                bool
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 4 {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, stdout)
	}
	if rep.OK || len(rep.Checks) != 11 || rep.Checks[10].Name != "model" || rep.Checks[10].OK || rep.Checks[10].Fix != "ollama pull mistral" {
		t.Errorf("--json = %+v", rep)
	}

	// A workspace failure outranks Ollama's: exit 1.
	srv.Close()
	code, _, stderr = runDoctorCmd(t, false, "--home", filepath.Join(home, "missing"), "doctor")
	if code != 1 || stderr != "agent: doctor: 11 of 11 checks failed\n" {
		t.Errorf("no workspace and no Ollama: exit %d, stderr %q", code, stderr)
	}
}

func TestDoctorOnATerminal(t *testing.T) {
	home, _ := doctorReady(t)
	code, stdout, _ := runDoctorCmd(t, true, "--home", home, "--model", "mistral", "doctor")
	if code != 4 {
		t.Errorf("exit %d, want 4", code)
	}
	for _, want := range []string{
		"ok    workspace     " + home + "\n",
		"ok    index         fresh: 1 file, ",
		"ok    integrations  none configured\n",
		// The fix sits under the detail it answers.
		"fail  model         mistral:latest not installed\n" + strings.Repeat(" ", 20) + "fix: ollama pull mistral\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "\t") || strings.Contains(stdout, "\x1b[") {
		t.Errorf("terminal output has tabs or colour without Color set:\n%q", stdout)
	}
}

func TestDoctorUsage(t *testing.T) {
	code, _, stderr := runDoctorCmd(t, false, "doctor", "extra")
	if code != 2 || stderr != "agent: doctor takes no arguments\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestWithHomeQuotesAsPrintableWord: the --home put into doctor's fix is
// one word the user can paste and that shows every character: an escape
// sequence in the path is written escaped, never sent to the terminal.
func TestWithHomeQuotesAsPrintableWord(t *testing.T) {
	for home, want := range map[string]string{
		"/tmp/ws":        "agent --home /tmp/ws init",
		"/tmp/my ws":     "agent --home '/tmp/my ws' init",
		"/tmp/x\x1b[2Jy": `agent --home "/tmp/x\x1b[2Jy" init`,
		"/tmp/it's":      `agent --home '/tmp/it'\''s' init`,
	} {
		t.Setenv("AGENT_HOME", "")
		a := &app{homeFlag: home}
		if got := a.withHome("agent init"); got != want {
			t.Errorf("withHome with --home %q = %q, want %q", home, got, want)
		}
	}
}
