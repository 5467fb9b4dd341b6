package main

import (
	"slices"
	"testing"
)

// The notifier's command line on each system, checked here on any system
// (remind.txtar runs the real path only on the one it runs on). On macOS the
// text goes in as arguments of the script, never inside it, so a reminder
// holding quotes cannot change what osascript runs.
func TestNotifyCommand(t *testing.T) {
	title, body := `Reminder: say "hi"`, `reminder 1 (due …): say "hi" & end run`
	name, args := notifyCommand("darwin", title, body)
	want := []string{"-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", title, body}
	if name != "osascript" || !slices.Equal(args, want) {
		t.Errorf("darwin: %s %q, want osascript %q", name, args, want)
	}
	name, args = notifyCommand("linux", title, body)
	if want := []string{"--app-name=agent", title, body}; name != "notify-send" || !slices.Equal(args, want) {
		t.Errorf("linux: %s %q, want notify-send %q", name, args, want)
	}
}
