package main

import (
	"regexp"
	"testing"
	"time"
)

// On a terminal without colour an overdue reminder says so in its status
// column; before, only its red due time told it from one still ahead.
func TestOverdueSaysSoWithoutColour(t *testing.T) {
	home := ttyWorkspace(t, []string{"remind", "stretch", "--at", "+1s"}, []string{"remind", "later", "--at", "+2h"})
	// the clock a few seconds on, not a sleep: the first is then overdue
	t.Setenv(testNowVar, time.Now().Add(3*time.Second).Format(time.RFC3339))
	code, stdout, stderr := runTTY(t, false, "--home", home, "reminders")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^1 +.+ overdue +stretch *$`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^2 +.+ pending +later *$`).MatchString(stdout) {
		t.Errorf("reminders on a terminal without colour:\n%s", stdout)
	}
}
