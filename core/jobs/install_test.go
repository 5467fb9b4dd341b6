package jobs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An ordinary install: the tick runs with the binary, the workspace, the
// model and the Ollama server in effect, every minute.
func TestInstallText(t *testing.T) {
	in, err := NewInstall("/usr/local/bin/agent", "/home/ada/.agent", "qwen2.5:7b", "http://gpu-box:11434")
	if err != nil {
		t.Fatal(err)
	}
	name := in.UnitName()
	if !strings.HasPrefix(name, "agent-tick-") || len(name) != len("agent-tick-")+8 {
		t.Fatalf("unit name %q", name)
	}
	if got, want := in.Crontab(), "* * * * * OLLAMA_HOST=http://gpu-box:11434 /usr/local/bin/agent --home /home/ada/.agent --model qwen2.5:7b --quiet jobs tick\n"; got != want {
		t.Errorf("crontab\n got %q\nwant %q", got, want)
	}
	wantService := "[Unit]\nDescription=agent: deliver due reminders and run due jobs of /home/ada/.agent\n\n" +
		"[Service]\nType=oneshot\nEnvironment=\"OLLAMA_HOST=http://gpu-box:11434\"\n" +
		"ExecStart=/usr/local/bin/agent --home /home/ada/.agent --model qwen2.5:7b --quiet jobs tick\n"
	if got := in.Service(); got != wantService {
		t.Errorf("service\n got %q\nwant %q", got, wantService)
	}
	wantTimer := "[Unit]\nDescription=agent jobs tick every minute for /home/ada/.agent\n\n" +
		"[Timer]\nOnCalendar=*-*-* *:*:00\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n"
	if got := in.Timer(); got != wantTimer {
		t.Errorf("timer\n got %q\nwant %q", got, wantTimer)
	}
	// No OLLAMA_HOST in effect: none is written (the tick's default is the same).
	in.OllamaHost = ""
	if strings.Contains(in.Crontab(), "OLLAMA_HOST") || strings.Contains(in.Service(), "Environment=") {
		t.Errorf("an unset OLLAMA_HOST was written:\n%s\n%s", in.Crontab(), in.Service())
	}
	// No model asked for: none is frozen into the tick, which then uses the
	// agent's default of the day it runs.
	in.Model = ""
	if got, want := in.Crontab(), "* * * * * /usr/local/bin/agent --home /home/ada/.agent --quiet jobs tick\n"; got != want {
		t.Errorf("crontab without a model\n got %q\nwant %q", got, want)
	}
	if strings.Contains(in.Service(), "--model") {
		t.Errorf("a model nobody asked for was written:\n%s", in.Service())
	}
}

// Two workspaces get two units; the same workspace always the same one.
func TestInstallUnitPerWorkspace(t *testing.T) {
	a, _ := NewInstall("/bin/agent", "/home/ada/.agent", "m", "")
	b, _ := NewInstall("/bin/agent", "/home/ada/work-agent", "m", "")
	a2, _ := NewInstall("/other/agent", "/home/ada/.agent", "other", "http://x:1")
	if a.UnitName() == b.UnitName() {
		t.Errorf("two workspaces share the unit %s", a.UnitName())
	}
	if a.UnitName() != a2.UnitName() {
		t.Errorf("one workspace, two unit names: %s %s", a.UnitName(), a2.UnitName())
	}
}

// Paths and values with blanks, quotes, '%', '$' and ';' are quoted so that
// cron's shell and systemd each hand the tick exactly these arguments and
// this OLLAMA_HOST.
func TestInstallQuoting(t *testing.T) {
	in, err := NewInstall("/opt/my apps/agent", `/home/ada/50% "notes" $HOME;x`, "m", "http://h:1/?a=100%")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Crontab(), `* * * * * OLLAMA_HOST='http://h:1/?a=100\%' '/opt/my apps/agent' --home '/home/ada/50\% "notes" $HOME;x' --model m --quiet jobs tick`+"\n"; got != want {
		t.Errorf("crontab\n got %s\nwant %s", got, want)
	}
	wantExec := `ExecStart="/opt/my apps/agent" --home "/home/ada/50%% \"notes\" $$HOME;x" --model m --quiet jobs tick` + "\n"
	if !strings.Contains(in.Service(), wantExec) {
		t.Errorf("service lacks %s:\n%s", wantExec, in.Service())
	}
	if !strings.Contains(in.Service(), `Environment="OLLAMA_HOST=http://h:1/?a=100%%"`+"\n") ||
		!strings.Contains(in.Service(), `Description=agent: deliver due reminders and run due jobs of /home/ada/50%% "notes" $HOME;x`+"\n") {
		t.Errorf("service:\n%s", in.Service())
	}

	// The crontab line, as cron runs it (an unescaped % ends the command;
	// \% is a %), through sh: the arguments and the environment arrive whole.
	dir := t.TempDir()
	bin := filepath.Join(dir, "my apps", "agent")
	home := filepath.Join(dir, `50% "notes" $HOME;x`)
	in, err = NewInstall(bin, home, "m", "http://h:1/?a=100%")
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
	line := strings.TrimSuffix(in.Crontab(), "\n")
	cmd := strings.SplitN(line, " ", 6)[5]
	if strings.Contains(strings.ReplaceAll(cmd, `\%`, ""), "%") {
		t.Fatalf("an unescaped %% in the cron command: %s", cmd)
	}
	out, err := exec.Command("sh", "-c", strings.ReplaceAll(cmd, `\%`, "%")).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"OLLAMA_HOST=http://h:1/?a=100%", "--home", home, "--model", "m", "--quiet", "jobs", "tick"}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("cron ran\n%s\nwant\n%s", out, want)
	}
}

// What neither a crontab line nor a unit can carry is refused.
func TestInstallRefuses(t *testing.T) {
	for _, c := range [][4]string{
		{"agent", "/home/ada/.agent", "m", ""},
		{"/bin/agent", "relative/ws", "m", ""},
		{"/bin/agent", "/home/ada/\nws", "m", ""},
		{"/bin/agent", "/home/ada/.agent", "m", "http://x\n:1"},
	} {
		if _, err := NewInstall(c[0], c[1], c[2], c[3]); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewInstall%q: %v, want ErrInvalid", c, err)
		}
	}
}
