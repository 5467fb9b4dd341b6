package devsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The remote's .gitattributes selects nothing that runs or rewrites: a
// filter, a merge driver or a diff driver it names (here ones the user's
// global git config defines, each writing a marker file when run), and text
// eol=crlf on a log, are all overridden by .git/info/attributes, which no
// fetch can change, in a sync and in a copy made from the remote (init
// --from). The memory files still merge through agent's driver.
func TestRemoteAttributesSelectNoFilterNorDriver(t *testing.T) {
	a, _, remote := twoDevices(t)
	x := attacker(t, remote)
	write(t, x, ".gitattributes", "[attr]evil filter=evil merge=evil diff=evil\n"+
		"* filter=evil merge=evil diff=evil ident\n*.md text eol=crlf merge=evil\nnotes.txt evil\nlogs/** evil\n")
	write(t, x, "notes.txt", "plain words\n$Id$\n")
	appendLog(t, x, "09:00", "from the remote")
	gitIn(t, x, "add", "-A")
	gitIn(t, x, "commit", "-qm", "hostile attributes")
	push(t, x)
	// Defined once the attacker's own clone has committed (it shares the
	// global config).
	marker := filepath.Join(t.TempDir(), "ran")
	run := "sh -c 'echo $0 >> " + marker + "; cat'"
	for _, kv := range [][2]string{
		{"filter.evil.smudge", run + " smudge"},
		{"filter.evil.clean", run + " clean"},
		{"merge.evil.driver", "sh -c 'echo merge >> " + marker + "; exit 1'"},
		{"diff.evil.textconv", "sh -c 'echo textconv >> " + marker + "; cat \"$0\"'"},
	} {
		gitIn(t, a, "config", "--global", kv[0], kv[1]) // GIT_CONFIG_GLOBAL: twoDevices' temp file
	}

	appendLog(t, a, "10:00", "from this device")
	sync(t, a)
	appendLog(t, a, "11:00", "after the hostile attributes")
	sync(t, a)
	gitIn(t, a, "diff", "HEAD~1", "--", "logs/2026-11-27.md") // as the user might
	c := filepath.Join(t.TempDir(), "copy")
	if err := Clone(context.Background(), remote, testOptions(c, "")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, c, "notes.txt"); got != "plain words\n$Id$\n" {
		t.Errorf("notes.txt copied as %q, want its bytes", got)
	}
	if got := read(t, c, "logs/2026-11-27.md"); strings.Contains(got, "\r") {
		t.Errorf("the log was copied with CRLF:\n%q", got)
	}

	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a filter or driver the remote named ran:\n%s", b)
	}
	log := read(t, a, "logs/2026-11-27.md")
	if strings.Contains(log, "\r") {
		t.Errorf("the log was rewritten with CRLF:\n%q", log)
	}
	for _, want := range []string{"from the remote", "from this device", "after the hostile attributes"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lost %q (the merge did not go through agent's driver):\n%s", want, log)
		}
	}
	if got := read(t, a, "notes.txt"); got != "plain words\n$Id$\n" {
		t.Errorf("notes.txt checked out as %q, want its bytes", got)
	}
	if got := gitIn(t, remote, "show", "main:logs/2026-11-27.md"); strings.Contains(got, "\r") || !strings.Contains(got, "after the hostile attributes") {
		t.Errorf("the log pushed is %q", got)
	}
}
