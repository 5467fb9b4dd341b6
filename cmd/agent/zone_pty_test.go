package main

import (
	"regexp"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// Every time shown to a person is in the user's zone, with the zone named.
// The machine runs at UTC-12 and user.timezone is UTC+14: the two are a
// day and two hours apart, so a time said in the machine's zone (as
// sessions list, profile history, soul history, memory status and doctor
// once did) can never pass for the user's.
func TestTimesInTheUsersZone(t *testing.T) {
	h := newHarness(t)
	h.setenv("TZ", "Etc/GMT+12")
	srv := h.fakeOllama()
	srv.Script(ollamatest.Text("Hello."))
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	h.must("", "profile", "set", "user.timezone", "Pacific/Kiritimati")
	h.must("", "chat", "hello")
	if r := h.run("", "memory", "reindex"); r.code != 0 {
		t.Fatal(r)
	}
	if r := h.run("", "jobs", "add", "nightly", "--schedule", "@daily", "--", "log", "note"); r.code != 0 {
		t.Fatal(r)
	}

	// The session's name is the user's clock; its listing says the same day.
	list := h.runPTY("sessions", "list")
	name := regexp.MustCompile(`(\d{4}-\d\d-\d\d)-(\d\d)\d\d`).FindStringSubmatch(list)
	if name == nil {
		t.Fatalf("no session named by the clock in:\n%s", list)
	}
	if !regexp.MustCompile(`\w{3} ` + name[1] + ` \d\d:\d\d \+14`).MatchString(list) {
		t.Errorf("sessions list does not show %s in the user's zone (+14) as the name does:\n%s", name[1], list)
	}
	for _, args := range [][]string{
		{"profile", "history"},
		{"profile", "show"},
		{"soul", "history"},
		{"memory", "status"},
		{"jobs"},
		{"sessions", "show"},
	} {
		if out := h.runPTY(args...); !strings.Contains(out, " +14") || strings.Contains(out, " -12") {
			t.Errorf("agent %s shows no time in the user's zone (+14):\n%s", strings.Join(args, " "), out)
		}
	}
	if r := h.run("", "doctor"); !regexp.MustCompile(`indexed \w{3} \d{4}-\d\d-\d\d \d\d:\d\d \+14`).MatchString(r.stdout + r.stderr) {
		t.Errorf("doctor's index line is not in the user's zone:\n%s", r)
	}
	// Scripts keep RFC 3339 with an offset.
	if out := h.must("", "sessions", "list", "--json"); !regexp.MustCompile(`"updated_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)"`).MatchString(out) {
		t.Errorf("sessions list --json lost its RFC 3339 time:\n%s", out)
	}
}
