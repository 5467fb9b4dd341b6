package jobs

import (
	"os"
	"strings"
	"testing"
)

// TestDocListsTheCommandsAJobMayRun: docs/cli-time.md names every command
// a job may run, and no other (issue 48: it left out sync, which a job
// runs).
func TestDocListsTheCommandsAJobMayRun(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli-time.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "The words after `--` must start with")
	if !ok {
		t.Fatal("docs/cli-time.md no longer says which commands a job runs")
	}
	sentence, _, _ := strings.Cut(rest, ";")
	sentence, _, _ = strings.Cut(sentence, "(") // an example follows
	var listed []string
	for i, part := range strings.Split(sentence, "`") {
		if i%2 == 1 { // the words between backticks
			listed = append(listed, part)
		}
	}
	var want []string
	for _, c := range agentCommands {
		want = append(want, strings.Join(c, " "))
	}
	if strings.Join(listed, ", ") != strings.Join(want, ", ") {
		t.Errorf("docs/cli-time.md lists %q; a job may run %q", listed, want)
	}
}
