package mcp

import (
	"regexp"
	"strings"
	"sync"
)

// A server's failure is recorded as the whole error chain (state.db, the
// log), since that is what a bug report needs; a person is shown it in
// their own terms by Said. The patterns are the standard library's wording
// (os/exec, net), which go.mod pins; a chain none matches is shown whole.
var (
	saidForkExec  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`fork/exec ([^:]+): (.+?)$`) })
	saidNotInPath = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`exec: "([^"]+)": executable file not found in \$PATH`)
	})
	saidURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:Get|Post|Delete) "([^"]+)"`) })
)

// saidWhy shortens the system's reasons a program cannot be started.
var saidWhy = map[string]string{
	"no such file or directory": "no such file",
	"permission denied":         "permission denied (is it executable?)",
	"exec format error":         "not a program this system can run",
}

// Said is a server's recorded failure (raw, as Status.Detail holds it) in
// the user's terms: "cannot start /x/server: no such file", "the server at
// URL refused the connection". target is the configured command or URL;
// the server's own stderr, when the failure carries it, is kept.
func Said(raw, target string) string {
	msg, tail, _ := strings.Cut(raw, "; its stderr ends: ")
	if tail != "" {
		tail = "; its stderr ends: " + tail
	}
	url := target
	if m := saidURL().FindStringSubmatch(msg); m != nil {
		url = m[1]
	}
	if m := saidForkExec().FindStringSubmatch(msg); m != nil {
		why := m[2]
		if w, ok := saidWhy[why]; ok {
			why = w
		}
		return "cannot start " + m[1] + ": " + why + tail
	}
	switch {
	case saidNotInPath().MatchString(msg):
		return "cannot start " + saidNotInPath().FindStringSubmatch(msg)[1] + ": no such command in PATH" + tail
	case strings.Contains(msg, "connection refused"):
		return "the server at " + url + " refused the connection" + tail
	case strings.Contains(msg, "no such host"):
		return "cannot find the host of " + url + " (no such host)" + tail
	case strings.Contains(msg, "no answer within the start timeout"):
		return target + " did not answer within the start timeout" + tail
	case strings.Contains(msg, "i/o timeout"):
		return "the server at " + url + " did not answer in time" + tail
	case strings.HasSuffix(msg, "EOF") || strings.Contains(msg, "connection closed"):
		return "it stopped before it answered" + tail
	}
	return raw
}
