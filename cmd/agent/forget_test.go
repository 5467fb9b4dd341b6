package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
)

// holders lists the workspace files (databases, their -wal/-shm and
// journals included) whose bytes hold s in any case, as `strings | grep -i`
// would find it.
func (h *harness) holders(s string) []string {
	h.t.Helper()
	var out []string
	needle := bytes.ToLower([]byte(s))
	filepath.WalkDir(h.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			h.t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), needle) {
			rel, _ := filepath.Rel(h.home, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestForgetLeavesNothing: a phrase said in a chat (stored message,
// context, request, logged turn), logged, added to MEMORY.md (a revision)
// and cited by a digest is, after agent forget, in no file of the
// workspace and no byte of its databases; the text around it stays byte
// for byte, the digest line citing it is marked, and search no longer
// finds it.
func TestForgetLeavesNothing(t *testing.T) {
	t.Parallel()
	const phrase = "Qv8MartaNews"
	h := newHarness(t)
	srv, err := ollamatest.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h.setenv("OLLAMA_HOST", srv.Host())
	srv.Default(ollamatest.Text("Noted: " + phrase + ", I will keep it quiet."))
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "-q", "log", "Before lunch. Igor said "+phrase+" is to stay between us. After lunch.")
	h.must("", "-q", "memory", "add", "Remember "+phrase+" quietly")
	h.must("", "-q", "chat", "--session", "kitchen", "keep this: "+phrase)
	h.must("", "-q", "chat", "--session", "kitchen", "and the tiles are blue")
	logs, _ := filepath.Glob(filepath.Join(h.home, "logs", "*.md"))
	if len(logs) != 1 {
		t.Fatalf("logs: %v", logs)
	}
	logRel, _ := filepath.Rel(h.home, logs[0])
	logBefore := h.read(logRel)
	line := 0
	for i, l := range strings.Split(logBefore, "\n") {
		if strings.Contains(l, "Before lunch") {
			line = i + 1
		}
	}
	os.MkdirAll(filepath.Join(h.home, "digests"), 0o700)
	digest := fmt.Sprintf("# Week\n\n- Igor shared news (%s:%d)\n- Other thing (%s:1)\n", logRel, line, logRel)
	os.WriteFile(filepath.Join(h.home, "digests", "2026-W48.md"), []byte(digest), 0o600)
	h.must("", "-q", "memory", "reindex")
	if len(h.holders(phrase)) == 0 {
		t.Fatal("the phrase is nowhere before the forget: the test looks in the wrong place")
	}

	dry := h.must("", "--json", "forget", "--dry-run", strings.ToLower(phrase))
	var listing struct {
		Places []struct {
			Kind, Path, Session string
			Line, Turn          int
		} `json:"places"`
		Done bool `json:"done"`
	}
	if err := json.Unmarshal([]byte(dry), &listing); err != nil || listing.Done {
		t.Fatalf("dry run: %v %s", err, dry)
	}
	kinds := map[string]bool{}
	for _, p := range listing.Places {
		kinds[p.Kind] = true
		if p.Kind == "session" && p.Session == "kitchen" && p.Turn == 1 {
			kinds["turn 1"] = true
		}
	}
	for _, k := range []string{"file", "session", "revision", "index", "turn 1"} {
		if !kinds[k] {
			t.Errorf("the listing has no %s place: %s", k, dry)
		}
	}
	if len(h.holders(phrase)) == 0 || h.read(logRel) != logBefore {
		t.Fatal("--dry-run changed something")
	}

	r := h.run("", "forget", strings.ToLower(phrase)) // no terminal, no --yes
	if r.code == 0 || len(h.holders(phrase)) == 0 {
		t.Fatalf("forget without --yes off a terminal went ahead: %s", r)
	}
	h.run("", "-q", "forget", "--yes", strings.ToLower(phrase))
	if got := h.holders(phrase); len(got) != 0 {
		t.Errorf("after forget the phrase is still in %v", got)
	}
	logAfter := h.read(logRel)
	if want := strings.ReplaceAll(logBefore, phrase, "[forgotten]"); logAfter != want {
		t.Errorf("the log's other text changed:\n got %q\nwant %q", logAfter, want)
	}
	if d := h.read("digests/2026-W48.md"); !strings.Contains(d, "- [source changed by agent forget] Igor shared news") || !strings.Contains(d, "- Other thing") {
		t.Errorf("the digest line citing the changed log line is not marked:\n%s", d)
	}
	if r := h.run("", "memory", "search", phrase); r.code != 3 {
		t.Errorf("search still finds it: %s", r)
	}
	if out := h.must("", "prompt", "--session", "kitchen", "what did I say"); strings.Contains(strings.ToLower(out), strings.ToLower(phrase)) {
		t.Errorf("agent prompt still shows it")
	}
	if r := h.run("", "forget", "--yes", phrase); r.code != 3 {
		t.Errorf("a second forget should find nothing (exit 3): %s", r)
	}
	for _, name := range []string{"state.db", "index.db"} {
		if err := h.integrity(name); err != nil {
			t.Error(err)
		}
	}
}

// TestForgetKill9: agent forget killed with SIGKILL at random moments
// either completed or left everything as it was, once the next command has
// opened the workspace (it replays or rolls back the journal): the phrase
// is then in no byte of the workspace, or still in every place it was.
func TestForgetKill9(t *testing.T) {
	t.Parallel()
	crashLanes(t, newHarness(t), crashKills(t), 4, crashForget)
}

// crashForget is TestForgetKill9 in h's workspace, until kills have landed.
func crashForget(t *testing.T, h *harness, kills int) {
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	c := newCrashScenario(t, h)
	writeNotes(t, h, c.rng, 60) // an index rebuild that takes a moment
	plant := func(phrase string) []string {
		h.must("", "-q", "log", "Before "+phrase+" after.")
		h.must("", "-q", "memory", "add", "Fact: "+phrase+" stays.")
		h.must("", "-q", "memory", "reindex")
		return h.holders(phrase)
	}
	plant("WarmupPhrase0")
	d := c.timed("", nil, "-q", "forget", "--yes", "WarmupPhrase0")
	completed, rolledBack := 0, 0
	c.run(kills, func(i int) result {
		phrase := fmt.Sprintf("Zk%dQuietWord", i)
		before := plant(phrase)
		for _, want := range []string{"MEMORY.md", "state.db", "index.db"} {
			if !strings.Contains(strings.Join(before, " "), want) {
				t.Fatalf("round %d: the phrase is not in %s before the forget (%v)", i, want, before)
			}
		}
		r := h.killAfter(d, "", nil, "-q", "forget", "--yes", phrase)
		h.must("", "sessions", "list") // the next open finishes or undoes it
		after := h.holders(phrase)
		switch {
		case len(after) == 0:
			completed++
		case strings.Join(after, " ") == strings.Join(before, " "):
			rolledBack++
			if r.code == 0 {
				t.Fatalf("round %d: forget said it was done, but the phrase is still in %v", i, after)
			}
			h.must("", "-q", "forget", "--yes", phrase) // clean up for the next round
		default:
			t.Fatalf("round %d (%s): half forgotten: the phrase was in %v, now in %v", i, map[bool]string{true: "killed", false: "finished"}[r.killed], before, after)
		}
		if _, err := os.Stat(filepath.Join(h.home, ".forget")); err == nil {
			t.Fatalf("round %d: the journal is still there after the next open", i)
		}
		return r
	})
	c.report("forget")
	t.Logf("%d completed, %d rolled back", completed, rolledBack)
}

// TestForgetAsksOnATerminal: on a terminal forget lists the places, then
// asks; "n" (or nothing) changes nothing, "y" forgets.
func TestForgetAsksOnATerminal(t *testing.T) {
	t.Parallel()
	const phrase = "Pt5OrchidCode"
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "-q", "log", "the code is "+phrase+" now")
	p := h.startPTY(nil, "forget", phrase)
	p.expect(`logs/\d{4}-\d{2}-\d{2}\.md:\d+`)
	p.expect(`forget it\? \[y/N\] `)
	p.send("n\r")
	if err := p.wait(); err == nil {
		t.Error("answered no, yet exit 0")
	}
	if len(h.holders(phrase)) == 0 {
		t.Fatal("answered no, yet the phrase is gone")
	}
	p = h.startPTY(nil, "forget", phrase)
	p.expect(`forget it\? \[y/N\] `)
	p.send("y\r")
	p.expect(`done: 1 file rewritten`)
	if err := p.wait(); err != nil {
		t.Fatalf("answered yes: %v\n%s", err, p.all())
	}
	if got := h.holders(phrase); len(got) != 0 {
		t.Errorf("answered yes, yet the phrase is in %v", got)
	}
}

// TestForgetJoinsItsWords: forget takes free text as chat does, its words
// joined (unquoted), or from standard input with "-", which keeps the
// phrase out of the shell's history; an empty phrase is a usage error.
func TestForgetJoinsItsWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "-q", "log", "the door code is Blue Heron 42, the gate code Red Fox 7")
	if r := h.run("", "-q", "forget", "--yes", "blue", "heron", "42"); r.code != 0 {
		t.Fatalf("forget with its words unquoted: %s", r)
	}
	if r := h.run("red fox 7\n", "-q", "forget", "--yes", "-"); r.code != 0 {
		t.Fatalf("forget from standard input: %s", r)
	}
	logs, _ := filepath.Glob(filepath.Join(h.home, "logs", "*.md"))
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.ToLower(string(b)); strings.Contains(s, "heron 42") || strings.Contains(s, "fox 7") {
			t.Fatalf("%s still holds a phrase:\n%s", p, b)
		}
	}
	if r := h.run("", "forget", "--yes"); r.code != 2 || !strings.Contains(r.stderr, "needs TEXT") {
		t.Fatalf("forget without a phrase: %s", r)
	}
}
