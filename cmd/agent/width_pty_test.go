package main

import (
	"regexp"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// In an 80-column terminal, what agent prints fits: memory search's
// snippet lines, sessions list's rows, doctor's details and the REPL's
// /context summary are wrapped at spaces or cut with "…", never past the
// edge and never mid-word (the terminal would wrap them mid-word). Piped,
// nothing is cut.
func TestOutputFitsEightyColumns(t *testing.T) {
	h := newHarness(t)
	srv := h.fakeOllama()
	srv.Script(ollamatest.Text("Noted."), ollamatest.Text("Sure."))
	if r := h.run("", "init", "--agent-name", "Atlas", "--user-name", "Ada"); r.code != 0 {
		t.Fatal(r)
	}
	long := "The kingfisher returned to the willow by the mill pond this morning, " +
		"perched above the reeds, dived twice, and flew off downstream towards the " +
		"old stone bridge where the herons usually stand in the shallows."
	h.must("", "log", long)
	if r := h.run("", "memory", "reindex"); r.code != 0 {
		t.Fatal(r)
	}
	said := "please remember that the kingfisher came back to the willow by the mill pond this morning"
	h.must("", "chat", "--session", "a-rather-long-session-name-for-the-trip", said)
	// joined is what a person reads: continuation lines joined to the line
	// they continue.
	joined := func(out string) string {
		return regexp.MustCompile(`\n +`).ReplaceAllString(displayLine(out), " ")
	}

	fits := func(what, out string) {
		t.Helper()
		for _, l := range strings.Split(out, "\n") {
			if w := displayWidth(strings.TrimRight(l, "\r")); w > 80 {
				t.Errorf("%s: a line of %d columns in an 80-column terminal: %q", what, w, l)
			}
		}
	}
	search := h.runPTYCols(80, "memory", "search", "kingfisher")
	fits("memory search", search)
	// Every word shown is a whole word of the notes: none split.
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z]+`).FindAllString(long+" "+said+" session a rather long name for the trip User", -1) {
		words[w] = true
	}
	for _, w := range regexp.MustCompile(`[A-Za-z]+`).FindAllString(strings.Join(regexp.MustCompile(`(?m)^    .*$`).FindAllString(displayLine(search), -1), " "), -1) {
		if !words[w] {
			t.Errorf("memory search shows %q, not a word of the notes: a word cut in two?\n%s", w, search)
		}
	}
	if !strings.Contains(joined(search), "willow by the mill pond") {
		t.Errorf("memory search lost the snippet's words across its wrap:\n%s", search)
	}
	sessions := h.runPTYCols(80, "sessions", "list")
	fits("sessions list", sessions)
	if !strings.Contains(sessions, "…") {
		t.Errorf("sessions list: the long row is not marked as cut:\n%s", sessions)
	}
	doctor := h.runPTYCols(80, "doctor")
	fits("doctor", doctor)
	if !strings.Contains(joined(doctor), "none found in MEMORY.md, SOUL.md, the logs, the digests, the skills and the imports") {
		t.Errorf("doctor's secrets detail is cut mid-word:\n%s", doctor)
	}

	p := h.startPTYCols(80, nil, "chat", "--session", "ctx")
	p.expect(prompt)
	p.send("/context" + keyEnter)
	summary := p.expect(`cuts: [^\n]*\n`)
	fits("/context", summary[strings.LastIndex(summary, "── total"):])
	if !regexp.MustCompile(`sha256:[0-9a-f]{64}`).MatchString(summary) {
		t.Errorf("/context cut the prompt's hash:\n%q", summary)
	}
	p.send(keyCtrlD)
	p.wait()

	// Piped, every word is there on one line: scripts need the whole data.
	if out := h.must("", "sessions", "list"); !strings.Contains(out, "please remember that the kingfisher came back to the willow by the mill pond this morning") {
		t.Errorf("piped sessions list was cut:\n%s", out)
	}
}

// runPTYCols is runPTY in a terminal cols wide.
func (h *harness) runPTYCols(cols uint16, args ...string) string {
	h.t.Helper()
	p := h.startPTYCols(cols, nil, args...)
	if err := p.wait(); err != nil {
		h.t.Fatalf("agent %s: %v\n%s", strings.Join(args, " "), err, p.all())
	}
	return strings.ReplaceAll(p.all(), "\r\n", "\n")
}
