package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"unicode"
)

// Install is what runs `agent jobs tick` every minute for one workspace as
// the user runs the agent: the same binary, workspace, model and Ollama
// server. `agent jobs install` shows its text and can write it; the text is
// built here, apart from any file or command, so it can be read and tested
// as text.
type Install struct {
	Bin  string // absolute path of the agent binary
	Home string // absolute path of the workspace
	// Model is the model the user asked for (--model, AGENT_MODEL); ""
	// writes none, and the tick uses the agent's default as it is then,
	// not the one of the day it was installed.
	Model string
	// OllamaHost is OLLAMA_HOST as it is in effect; "" when unset, and then
	// none is written (the tick's default is the same).
	OllamaHost string
}

// NewInstall checks that bin and home are absolute and that no value holds
// a line break or another control character, which neither a crontab line
// nor a unit file can carry.
func NewInstall(bin, home, model, ollamaHost string) (Install, error) {
	in := Install{Bin: bin, Home: home, Model: model, OllamaHost: ollamaHost}
	if !filepath.IsAbs(bin) || !filepath.IsAbs(home) {
		return Install{}, invalidf("the agent binary (%q) and the workspace (%q) must be absolute paths", bin, home)
	}
	for _, v := range []string{bin, home, model, ollamaHost} {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return Install{}, invalidf("%q holds a line break or a control character: no crontab line or unit can carry it", v)
		}
	}
	return in, nil
}

// UnitName names the systemd units of this workspace ("agent-tick-" and
// eight hex digits of its path's hash), so a second workspace's timer does
// not replace the first one's; the same workspace always gets the same.
func (in Install) UnitName() string {
	sum := sha256.Sum256([]byte(in.Home))
	return "agent-tick-" + hex.EncodeToString(sum[:4])
}

// args is the tick's command line.
func (in Install) args() []string {
	args := []string{in.Bin, "--home", in.Home}
	if in.Model != "" {
		args = append(args, "--model", in.Model)
	}
	return append(args, "--quiet", "jobs", "tick")
}

// Crontab is the crontab line: every word quoted for sh, and every '%'
// escaped, which cron would otherwise turn into a line break.
func (in Install) Crontab() string {
	var words []string
	if in.OllamaHost != "" {
		words = append(words, "OLLAMA_HOST="+ShellQuote(in.OllamaHost))
	}
	for _, a := range in.args() {
		words = append(words, ShellQuote(a))
	}
	return "* * * * * " + strings.ReplaceAll(strings.Join(words, " "), "%", `\%`) + "\n"
}

// Service is the systemd user service the timer starts.
func (in Install) Service() string {
	var b strings.Builder
	b.WriteString("[Unit]\nDescription=agent: deliver due reminders and run due jobs of " + specifiers.Replace(in.Home) + "\n\n")
	b.WriteString("[Service]\nType=oneshot\n")
	if in.OllamaHost != "" {
		b.WriteString("Environment=" + systemdQuote("OLLAMA_HOST="+in.OllamaHost, true) + "\n")
	}
	words := make([]string, 0, 8)
	for _, a := range in.args() {
		words = append(words, strings.ReplaceAll(systemdQuote(a, false), "$", "$$"))
	}
	b.WriteString("ExecStart=" + strings.Join(words, " ") + "\n")
	return b.String()
}

// Timer is the systemd user timer: every minute, and once at start for a
// minute missed while the machine slept.
func (in Install) Timer() string {
	return "[Unit]\nDescription=agent jobs tick every minute for " + specifiers.Replace(in.Home) + "\n\n" +
		"[Timer]\nOnCalendar=*-*-* *:*:00\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n"
}

// specifiers escapes systemd's % specifiers, which it expands in every
// setting.
var specifiers = strings.NewReplacer("%", "%%")

// systemdQuote writes s as one word of a unit setting: as it is when it
// holds nothing systemd reads specially, else in double quotes with '\'
// and '"' escaped; '%' is always doubled. always quotes even a plain word.
func systemdQuote(s string, always bool) string {
	s = specifiers.Replace(s)
	if !always && s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ShellQuote writes s as one word that sh will read back exactly (the
// crontab line here; git's merge-driver line, written by agent sync): as it
// is when made only of safe characters, else in single quotes. It encodes a
// file format, as systemdQuote does; it is not for showing a word to a
// person, which printable.Word does (it escapes control characters, and
// NewInstall has refused them here).
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/@:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
