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
	time.Sleep(1100 * time.Millisecond)
	code, stdout, stderr := runTTY(t, false, "--home", home, "reminders")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^1 +.+ overdue +stretch *$`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^2 +.+ pending +later *$`).MatchString(stdout) {
		t.Errorf("reminders on a terminal without colour:\n%s", stdout)
	}
}
