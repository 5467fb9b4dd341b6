package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"agent/core/ollamatest"
)

// crashKills is how many kill -9 must land per scenario (AGENT_CRASH_KILLS,
// default 20).
func crashKills(t *testing.T) int {
	if v := os.Getenv("AGENT_CRASH_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("AGENT_CRASH_KILLS=%q: want a positive number", v)
		}
		return n
	}
	return 20
}

// workspace returns a harness on a fresh workspace of its own, sharing the
// binary (and any fake Ollama) with h.
func (h *harness) workspace(t *testing.T, name string) *harness {
	c := *h
	c.t = t
	c.home = filepath.Join(h.dir, name)
	c.env = append([]string(nil), h.env...)
	c.setenv("AGENT_HOME", c.home)
	return &c
}

// killAfter starts agent and sends it SIGKILL at a moment drawn by d,
// unless it has finished by then; a run that finished is a measurement of
// how long the command takes, and d learns from it.
func (h *harness) killAfter(d *runTime, stdin string, extraEnv []string, args ...string) result {
	cmd, stdout, stderr := h.command(stdin, extraEnv, args...)
	delay := d.draw()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		h.t.Fatalf("start agent: %v", err)
	}
	timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
	r := wait(cmd, stdout, stderr, args)
	timer.Stop()
	if !r.killed {
		d.finished(time.Since(start))
	}
	return r
}

// timed runs a process to completion and says how long it took: the kill
// delays are drawn from the time an uninterrupted run needs.
func (c *crashScenario) timed(stdin string, extraEnv []string, args ...string) *runTime {
	c.t.Helper()
	start := time.Now()
	r := c.h.runEnv(stdin, extraEnv, args...)
	if r.code != 0 {
		c.t.Fatalf("unexpected: %s", r)
	}
	return &runTime{rng: c.rng, d: time.Since(start)}
}

// runTime is how long one command runs uninterrupted, as last measured.
// The first measurement may be far off (a cold cache, a busy moment), and a
// machine's speed changes while the test runs; kills drawn from a stale
// figure mostly land after the process has finished. So every run that
// finishes before its kill replaces the figure with its own time.
type runTime struct {
	rng *rand.Rand
	d   time.Duration
}

// draw picks a kill moment in [0, 1.2*d): most land inside the run, some
// after it, so the finished path is checked under the same conditions.
func (r *runTime) draw() time.Duration {
	return time.Duration(r.rng.Int64N(int64(r.d)*6/5 + 1))
}

func (r *runTime) finished(took time.Duration) { r.d = took }

// crashLanes shares kills among lanes workspaces of h that run side by
// side, each as a parallel subtest calling scenario with its share. A round
// of a crash scenario is a few processes that mostly wait on fsync and
// exit, so one after another the rounds of TestCrashImport took 110 s on a
// quiet 2-core machine (issue 51). Each lane draws its kill moments from its
// own runs, so the kill points cover the command as they did in one lane.
func crashLanes(t *testing.T, h *harness, kills, lanes int, scenario func(t *testing.T, h *harness, kills int)) {
	for lane := range lanes {
		k := (kills + lanes - 1 - lane) / lanes // the shares add up to kills
		if k == 0 {
			continue
		}
		name := fmt.Sprintf("lane%d", lane)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scenario(t, h.workspace(t, name), k)
		})
	}
}

// crashRounds kills processes until kills of them have landed (bounded at
// 10 rounds per kill, for a machine so fast that most runs finish first).
// round runs one process and returns its result; after each round check
// runs.
type crashScenario struct {
	t      *testing.T
	h      *harness
	rng    *rand.Rand
	landed int
	rounds int
	ok     int // rounds that finished before the kill
}

func newCrashScenario(t *testing.T, h *harness) *crashScenario {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return &crashScenario{t: t, h: h, rng: rand.New(rand.NewPCG(seed, seed>>7))}
}

func (c *crashScenario) run(kills int, round func(i int) result) {
	for i := 0; c.landed < kills && i < 10*kills; i++ {
		r := round(i)
		c.rounds++
		switch {
		case r.killed:
			c.landed++
		case r.code == 0:
			c.ok++
		default:
			c.t.Fatalf("round %d: %s", i, r)
		}
		for _, name := range []string{"state.db", "index.db"} {
			if err := c.h.integrity(name); err != nil {
				c.t.Fatalf("round %d, after %s: %v", i, map[bool]string{true: "kill -9", false: "a finished run"}[r.killed], err)
			}
		}
		if c.t.Failed() {
			c.t.FailNow()
		}
	}
	if c.landed < kills {
		c.t.Fatalf("only %d of %d kills landed in %d rounds", c.landed, kills, c.rounds)
	}
}

func (c *crashScenario) report(what string) {
	c.t.Logf("%s: %d kill -9 landed and survived, %d runs finished first, %d rounds", what, c.landed, c.ok, c.rounds)
}

// TestCrash kills agent with SIGKILL at random moments of its writes and
// checks after every kill that nothing precious was damaged: both databases
// pass PRAGMA integrity_check, and each scenario's own promise holds. The
// scenarios have a workspace each and run side by side, and beside the
// other tests: their processes mostly wait (issue 51).
func TestCrash(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	kills := crashKills(t)
	for _, s := range []struct {
		name string
		run  func(*testing.T, *harness, int)
	}{{"reindex", crashReindex}, {"soul", crashSoul}, {"log", crashLog}, {"session", crashSession}} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(t, h.workspace(t, s.name), kills)
		})
	}
}

// writeNotes fills logs/ with n daily logs of a few sections each, so a full
// reindex takes long enough to be killed in the middle.
func writeNotes(t *testing.T, h *harness, rng *rand.Rand, n int) {
	words := strings.Fields("lisbon flight kitchen tiles garden tomato invoice meeting piano lesson dentist bicycle " +
		"recipe bread sourdough budget rent train berlin paint ceiling walnut desk library novel chess")
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		date := day.AddDate(0, 0, i).Format("2006-01-02")
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n", date)
		for s := 0; s < 6; s++ {
			fmt.Fprintf(&b, "\n### %02d:%02d\n\n", 8+s, rng.IntN(60))
			for l := 0; l < 4+rng.IntN(8); l++ {
				for w := 0; w < 12; w++ {
					b.WriteString(words[rng.IntN(len(words))] + " ")
				}
				b.WriteString("\n")
			}
		}
		if err := os.WriteFile(filepath.Join(h.home, "logs", date+".md"), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// reindexJSON is the part of `memory reindex --json` the test reads.
type reindexJSON struct {
	New, Changed, Removed int
}

// crashReindex: files change between rounds; reindex (incremental or
// --full) is killed. After every other kill (the others pile up on each
// other) the next reindex must converge: it succeeds, a second one finds
// nothing to do, and every fifth time the chunks are compared with a fresh
// --full rebuild; the comparison runs once more at the end.
func crashReindex(t *testing.T, h *harness, kills int) {
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	c := newCrashScenario(t, h)
	writeNotes(t, h, c.rng, 120)
	dFull := c.timed("", nil, "-q", "memory", "reindex", "--full")
	mutate := func(i int) {
		// Change a few files as an editor would: append, rewrite, delete, create.
		files, _ := filepath.Glob(filepath.Join(h.home, "logs", "*.md"))
		for k := 0; k < 1+c.rng.IntN(6); k++ {
			f := files[c.rng.IntN(len(files))]
			switch c.rng.IntN(4) {
			case 0:
				appendFile(t, f, fmt.Sprintf("\n### 23:%02d\n\nround %d appended walnut chess\n", k, i))
			case 1:
				os.WriteFile(f, []byte(fmt.Sprintf("# rewritten\n\n## Round %d\n\nlisbon library %d\n", i, k)), 0o600)
			case 2:
				os.Remove(f)
			case 3:
				os.WriteFile(filepath.Join(h.home, "logs", fmt.Sprintf("2027-01-%02d.md", 1+c.rng.IntN(28))), []byte(fmt.Sprintf("# new\n\nround %d piano\n", i)), 0o600)
			}
		}
	}
	mutate(-1)
	dIncr := c.timed("", nil, "-q", "memory", "reindex")
	checks := 0
	c.run(kills, func(i int) result {
		mutate(i)
		var r result
		if i%2 == 0 {
			r = h.killAfter(dFull, "", nil, "-q", "memory", "reindex", "--full")
		} else {
			r = h.killAfter(dIncr, "", nil, "-q", "memory", "reindex")
		}
		if i%2 == 1 {
			converge(t, h, i%10 == 9)
			checks++
		}
		return r
	})
	converge(t, h, true)
	leftovers, _ := filepath.Glob(filepath.Join(h.home, ".index.db.new-*"))
	c.report(fmt.Sprintf("reindex (%d convergence checks; %d abandoned rebuild files left for the next day's cleanup)", checks+1, len(leftovers)))
}

// converge runs the incremental reindex a user would after a crash and
// checks that it succeeds and that a second one has nothing left to do;
// with rebuild, that the index then equals a --full rebuild.
func converge(t *testing.T, h *harness, rebuild bool) {
	t.Helper()
	r := h.run("", "-q", "memory", "reindex")
	if r.code != 0 || r.stderr != "" && !strings.Contains(r.stderr, ": rebuilding it") {
		t.Fatalf("reindex after a kill: %s", r)
	}
	var again reindexJSON
	if err := json.Unmarshal([]byte(h.must("", "--json", "-q", "memory", "reindex")), &again); err != nil {
		t.Fatal(err)
	}
	if again.New+again.Changed+again.Removed != 0 {
		t.Fatalf("a second reindex still found work: %+v", again)
	}
	if rebuild {
		h.sameChunksAsFullRebuild(h.chunks(), "after a kill and one reindex")
	}
}

func appendFile(t *testing.T, path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return // deleted by an earlier mutation of the same round
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// crashSoul: SOUL.md is switched between a short and a long revision by
// `soul revert`, killed at random. After each kill SOUL.md is exactly one of
// the two, and the next read records and shows what the file holds.
func crashSoul(t *testing.T, h *harness, kills int) {
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	short := h.read("SOUL.md")
	var long strings.Builder
	long.WriteString("# Soul\n\nA long persona, to make the write take a while.\n")
	for i := 0; long.Len() < 15<<10; i++ {
		fmt.Fprintf(&long, "\n## Habit %d\n- I keep habit %d written down, whole, in one revision.\n", i, i)
	}
	src := filepath.Join(h.dir, "long-soul.md")
	if err := os.WriteFile(src, []byte(long.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// soul edit runs sh -c 'EDITOR "$1"': the editor copies the long persona over the temp copy.
	if r := h.runEnv("", []string{"EDITOR=cp " + src}, "-q", "soul", "edit"); r.code != 0 || r.stderr != "" {
		t.Fatalf("unexpected: %s", r)
	}
	if h.read("SOUL.md") != long.String() {
		t.Fatal("the long persona was not saved")
	}
	contents := map[string]string{sha(short): "revision 1", sha(long.String()): "revision 2"}
	c := newCrashScenario(t, h)
	d := c.timed("", nil, "-q", "soul", "revert", "1")
	c.run(kills, func(i int) result {
		r := h.killAfter(d, "", nil, "-q", "soul", "revert", strconv.Itoa(1+i%2))
		got := h.read("SOUL.md")
		if _, ok := contents[sha(got)]; !ok {
			t.Fatalf("round %d: SOUL.md is neither the old nor the new content (%d bytes):\n%s", i, len(got), clipTestOut(got))
		}
		// The next reader records whatever the kill left as the current
		// revision, silently, and shows exactly the file.
		if out := h.must("", "soul", "show"); out != got {
			t.Fatalf("round %d: soul show differs from SOUL.md", i)
		}
		var hist []soulRevisionJSON
		if err := json.Unmarshal([]byte(h.must("", "--json", "soul", "history")), &hist); err != nil {
			t.Fatal(err)
		}
		if hist[0].SHA256 != sha(got) {
			t.Fatalf("round %d: the latest revision (%s) is not SOUL.md's content", i, hist[0].SHA256)
		}
		return r
	})
	leftovers, _ := filepath.Glob(filepath.Join(h.home, ".SOUL.md.tmp*"))
	c.report(fmt.Sprintf("SOUL.md save (%d temp files left by kills)", len(leftovers)))
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// crashLog: notes of 1 to 300 lines are appended with `agent log -` and
// killed at random. Every note is then either whole or absent, exactly
// once if the command succeeded, and the log stays a sequence of entries.
func crashLog(t *testing.T, h *harness, kills int) {
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "profile", "set", "user.timezone", "UTC")
	c := newCrashScenario(t, h)
	note := func(i, lines int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "BEGIN %d\n", i)
		for l := 0; l < lines; l++ {
			fmt.Fprintf(&b, "line %d of note %d, long enough to fill the page cache a little\n", l, i)
		}
		fmt.Fprintf(&b, "END %d\n", i)
		return b.String()
	}
	d := c.timed(note(-1, 300), nil, "-q", "log", "-")
	var results []result
	var notes []string
	c.run(kills, func(i int) result {
		notes = append(notes, note(i, 1+c.rng.IntN(300)))
		r := h.killAfter(d, notes[i], nil, "-q", "log", "-")
		results = append(results, r)
		return r
	})
	logs := h.logs()
	for i, r := range results {
		begins := strings.Count(logs, fmt.Sprintf("\nBEGIN %d\n", i))
		ends := strings.Count(logs, fmt.Sprintf("\nEND %d\n", i))
		whole := strings.Count(logs, "\n"+notes[i])
		switch {
		case begins != whole || ends != whole:
			t.Errorf("note %d is torn: %d BEGIN, %d END, %d whole (killed %v)", i, begins, ends, whole, r.killed)
		case r.code == 0 && whole != 1:
			t.Errorf("note %d reported written appears %d times", i, whole)
		case whole > 1:
			t.Errorf("note %d appears %d times", i, whole)
		}
	}
	h.checkLogTitles()
	// Whatever a kill left, the next append still starts a clean entry.
	h.must("last note\n", "-q", "log", "-")
	if !strings.HasSuffix(h.logs(), "\n\nlast note\n") {
		t.Errorf("the append after the kills is not a clean entry:\n%s", clipTestOut(h.logs()[max(0, len(h.logs())-300):]))
	}
	c.report("log append")
}

// crashSession: one-shot chats on one named session, killed at random while
// they assemble, stream, store and log. A turn whose reply was printed and
// whose process exited 0 must be in the session, in order; every kill
// leaves a session the next chat continues.
func crashSession(t *testing.T, h *harness, kills int) {
	srv, err := ollamatest.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h.setenv("OLLAMA_HOST", srv.Host())
	var reply strings.Builder
	for i := 0; i < 120; i++ {
		reply.WriteString("word ")
	}
	want := strings.TrimSpace(reply.String())
	srv.Default(ollamatest.Text(want))
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	c := newCrashScenario(t, h)
	d := c.timed("", nil, "-q", "chat", "--session", "crash", "warm up")
	var results []result
	c.run(kills, func(i int) result {
		r := h.killAfter(d, "", nil, "-q", "chat", "--session", "crash", fmt.Sprintf("turn %d", i))
		if r.code == 0 && r.stdout != want+"\n" {
			t.Fatalf("round %d: exit 0 but the reply printed was %q", i, clipTestOut(r.stdout))
		}
		results = append(results, r)
		return r
	})
	var sess struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(h.must("", "--json", "sessions", "show", "crash")), &sess); err != nil {
		t.Fatal(err)
	}
	answered := map[string]int{}
	for j, m := range sess.Messages {
		if m.Role == "user" && j+1 < len(sess.Messages) {
			next := sess.Messages[j+1]
			if next.Role == "assistant" && next.Status == "complete" && next.Content == want {
				answered[m.Content]++
			}
		}
	}
	saved := 0
	for i, r := range results {
		if r.code != 0 {
			continue
		}
		saved++
		if n := answered[fmt.Sprintf("turn %d", i)]; n != 1 {
			t.Errorf("turn %d exited 0 with its reply, but the session holds it answered %d times", i, n)
		}
	}
	// The session goes on after all the kills. By now its history is longer
	// than num_ctx holds, so chat reports the cut on stderr: that, and only
	// that, is expected there.
	r := h.run("", "-q", "chat", "--continue", "still there?")
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if line != "" && !strings.HasPrefix(line, "agent: context cut to fit num_ctx") {
			t.Errorf("chat after the kills: unexpected stderr %q", line)
		}
	}
	if r.code != 0 || r.stdout != want+"\n" {
		t.Errorf("chat after the kills: %s", r)
	}
	h.checkLogTitles()
	c.report(fmt.Sprintf("session write (%d turns reported saved, all found)", saved))
}
