package core

import (
	"bufio"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// RemoteNoticeFile remembers, in the workspace, which Ollama servers off
// this machine the user was told about and for what, so the notice is
// said once and not at every run. Hidden: the index skips it.
const RemoteNoticeFile = ".remote-ollama"

// What a remote server receives, in the words of the notice.
const (
	RemoteForEmbedding = "every note (notes folders included) to embed it, and each search's words"
	RemoteForChat      = "the conversation: your messages, the notes recalled for them, your profile and SOUL.md"
	RemoteForDistill   = "your daily logs and MEMORY.md, to distill them"
)

// OffMachine says whether the Ollama server at base (OLLAMA_HOST as a
// URL) is off this machine: not a loopback or unspecified address, not
// localhost or this machine's own name, not a unix socket.
func OffMachine(base string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "unix" || strings.HasPrefix(u.Path, "/") && u.Host == "" {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip := net.ParseIP(host); ip != nil {
		return !ip.IsLoopback() && !ip.IsUnspecified()
	}
	if host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	me, err := os.Hostname()
	return err != nil || !strings.EqualFold(host, strings.TrimSuffix(me, "."))
}

// SayRemote tells the user, through say, that the Ollama server at base
// is off this machine and receives what — once per workspace, server and
// use, remembered in RemoteNoticeFile (home "" remembers nothing). A local
// server is never mentioned. Sending to a server the user configured is
// their choice; doing it without a word is not.
func SayRemote(home, base, what string, say func(string)) {
	if !OffMachine(base) {
		return
	}
	key := base + "\t" + what
	var path string
	if home != "" {
		path = filepath.Join(home, RemoteNoticeFile)
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if sc.Text() == key {
					f.Close()
					return
				}
			}
			f.Close()
		}
	}
	say("Ollama at " + base + " is not on this machine: it receives " + what + " (said once; unset OLLAMA_HOST to keep everything here)")
	if path == "" {
		return
	}
	// One short line appended: two runs at once may both say it, never
	// lose or garble what the other wrote.
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
		f.WriteString(key + "\n")
		f.Close()
	}
}
