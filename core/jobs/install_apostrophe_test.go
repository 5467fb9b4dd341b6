package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A home with an apostrophe in it (/home/o'brien) gives a crontab line that
// sh runs with the tick's arguments whole: the apostrophe closes no quote.
func TestCrontabWithApostrophesRunsInSh(t *testing.T) {
	in, err := NewInstall("/usr/local/bin/agent", "/home/o'brien/.agent", "m", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Crontab(), `* * * * * /usr/local/bin/agent --home '/home/o'\''brien/.agent' --model m --quiet jobs tick`+"\n"; got != want {
		t.Errorf("crontab\n got %s\nwant %s", got, want)
	}

	// Run it: a binary and a workspace under o'brien's home, a model and an
	// Ollama address with apostrophes too.
	dir := filepath.Join(t.TempDir(), "o'brien")
	bin := filepath.Join(dir, "it's", "agent")
	home := filepath.Join(dir, "'.agent'")
	in, err = NewInstall(bin, home, "o'model", "http://o'host:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"OLLAMA_HOST=$OLLAMA_HOST\" \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := strings.SplitN(strings.TrimSuffix(in.Crontab(), "\n"), " ", 6)[5]
	out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
	if err != nil {
		t.Fatalf("sh -c %s: %v\n%s", cmd, err, out)
	}
	want := strings.Join([]string{"OLLAMA_HOST=http://o'host:1", "--home", home, "--model", "o'model", "--quiet", "jobs", "tick"}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("cron ran\n%s\nwant\n%s", out, want)
	}
}

// Every word shellQuote writes reaches a command through sh as it was:
// plain words left bare, and words with quotes, blanks and what sh expands.
func TestShellQuoteRoundTrip(t *testing.T) {
	words := []string{"plain", "/a/b-c_d.e@f:g", "", "'", "''", "o'brien", "it's o'brien's", "a b", `"`, `\`, "$HOME", "`id`", "*", "a;b", "!x", "\t"}
	for _, w := range words {
		q := ShellQuote(w)
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz/-_.@:") == "" && w != "" && q != w {
			t.Errorf("ShellQuote(%q) = %s, want it bare", w, q)
		}
		out, err := exec.Command("sh", "-c", "printf '%s|' "+q).CombinedOutput()
		if err != nil {
			t.Errorf("sh -c printf %s: %v\n%s", q, err, out)
			continue
		}
		if string(out) != w+"|" {
			t.Errorf("ShellQuote(%q) = %s: sh read %q", w, q, strings.TrimSuffix(string(out), "|"))
		}
	}
}
