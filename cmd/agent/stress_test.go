package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agent/core/ollamatest"
)

// The hardening tests run the real binary, built once per test process
// with `go build`, as separate processes on one workspace: what several terminals,
// a cron job and an editor do to a user's files. Their length is set by the
// environment so `make test` stays short and `make stress` (scripts/stress.sh)
// runs the long variants:
//
//	AGENT_STRESS=60s     how long TestStressConcurrentProcesses keeps them busy (default 6s)
//	AGENT_CRASH_KILLS=100  kill -9 rounds per TestCrash scenario (default 20)

// stressDuration is how long the concurrency test keeps its processes busy.
func stressDuration(t *testing.T) time.Duration {
	if v := os.Getenv("AGENT_STRESS"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("AGENT_STRESS=%q: want a duration such as 60s", v)
		}
		return d
	}
	return 6 * time.Second
}

// harness runs the real agent binary against one workspace.
type harness struct {
	t    *testing.T
	bin  string
	dir  string // scratch directory of the test
	home string // the workspace
	env  []string
}

// newHarness prepares a clean environment around the binary (built once
// per test process, agentBinary): nothing of the developer's agent or
// Ollama settings leaks in, and OLLAMA_HOST points at nothing until a fake
// is started.
func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, bin: agentBinary(t), dir: dir, home: filepath.Join(dir, "ws")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENT_") || strings.HasPrefix(k, "OLLAMA_") || k == "HOME" || k == "EDITOR" || k == "VISUAL" {
			continue
		}
		h.env = append(h.env, kv)
	}
	h.env = append(h.env, "AGENT_HOME="+h.home, "HOME="+filepath.Join(dir, "userhome"), "NO_COLOR=1",
		"OLLAMA_HOST=127.0.0.1:1", "AGENT_MODEL=llama3.2")
	return h
}

// built is the agent binary every harness of this test process runs: one
// `go build` (a cgo link of several seconds, more on a busy machine) instead
// of one per test. TestMain removes its directory when the tests end.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// harnessTags are the Makefile's TAGS: with the same tags as make build (and
// make test's e2e step), the packages compiled here, SQLite's C above all
// (a minute of CPU), are the build cache's for both.
const harnessTags = "sqlite_fts5,netgo,osusergo,sqlite_omit_load_extension"

// agentBinary builds the binary on first use and returns its path.
func agentBinary(t *testing.T) string {
	t.Helper()
	bin, err := builtAgent()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// builtAgent is agentBinary for callers without a *testing.T (a
// transcript's setup).
func builtAgent() (string, error) {
	built.once.Do(func() {
		goTool, err := exec.LookPath("go") // go test runs with the go command on PATH
		if err != nil {
			built.err = fmt.Errorf("the go command is needed to build agent: %w", err)
			return
		}
		if built.dir, err = os.MkdirTemp("", "agent-harness-"); err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(built.dir, "agent")
		if out, err := exec.Command(goTool, "build", "-tags", harnessTags, "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	return built.bin, built.err
}

// removeAgentBinary deletes the shared binary once every test has run.
func removeAgentBinary() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// setenv adds or replaces a variable for every later process.
func (h *harness) setenv(k, v string) {
	h.env = slices.DeleteFunc(h.env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
	h.env = append(h.env, k+"="+v)
}

// fakeOllama starts the in-process fake and points every later process at it.
func (h *harness) fakeOllama() *ollamatest.Server {
	h.t.Helper()
	srv, err := ollamatest.Start("")
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(srv.Close)
	h.setenv("OLLAMA_HOST", srv.Host())
	return srv
}

// result is one finished process.
type result struct {
	args   []string
	code   int  // exit status; -1 when killed by a signal
	killed bool // ended by SIGKILL
	stdout string
	stderr string
}

func (r result) String() string {
	return fmt.Sprintf("agent %s: exit %d, killed %v\nstdout: %q\nstderr: %q", strings.Join(r.args, " "), r.code, r.killed, clipTestOut(r.stdout), clipTestOut(r.stderr))
}

func clipTestOut(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// processTimeout bounds one process: a hang is a failure, never a stuck test.
const processTimeout = 2 * time.Minute

// command prepares an agent process.
func (h *harness) command(stdin string, extraEnv []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(h.bin, args...)
	cmd.Env = append(append([]string(nil), h.env...), extraEnv...)
	cmd.Dir = h.dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// wait collects a started process, killing it if it outlives processTimeout.
func wait(cmd *exec.Cmd, stdout, stderr *bytes.Buffer, args []string) result {
	timer := time.AfterFunc(processTimeout, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed = ws.Signal() == syscall.SIGKILL
		}
	default:
		r.code = -2
		r.stderr += "\n(harness: " + err.Error() + ")"
	}
	return r
}

// run runs one agent process to the end.
func (h *harness) run(stdin string, args ...string) result {
	return h.runEnv(stdin, nil, args...)
}

func (h *harness) runEnv(stdin string, extraEnv []string, args ...string) result {
	cmd, stdout, stderr := h.command(stdin, extraEnv, args...)
	if err := cmd.Start(); err != nil {
		h.t.Fatalf("start agent: %v", err)
	}
	return wait(cmd, stdout, stderr, args)
}

// must runs a process that has to succeed silently on stderr and returns
// its stdout.
func (h *harness) must(stdin string, args ...string) string {
	h.t.Helper()
	r := h.run(stdin, args...)
	if r.code != 0 || r.stderr != "" {
		h.t.Fatalf("unexpected: %s", r)
	}
	return r.stdout
}

// read returns a workspace file's content.
func (h *harness) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.home, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// logs returns every daily log concatenated, in name order.
func (h *harness) logs() string {
	h.t.Helper()
	files, err := filepath.Glob(filepath.Join(h.home, "logs", "*.md"))
	if err != nil {
		h.t.Fatal(err)
	}
	slices.Sort(files)
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			h.t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// checkLogTitles fails the test unless every daily log starts with its one
// "# YYYY-MM-DD" title and holds no other top-level heading.
func (h *harness) checkLogTitles() {
	h.t.Helper()
	files, err := filepath.Glob(filepath.Join(h.home, "logs", "*.md"))
	if err != nil {
		h.t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			h.t.Fatal(err)
		}
		title := "# " + strings.TrimSuffix(filepath.Base(f), ".md") + "\n"
		if !strings.HasPrefix(string(data), title) || strings.Contains(string(data), "\n# ") {
			h.t.Errorf("%s: the title is missing, repeated or misplaced:\n%s", f, clipTestOut(string(data)))
		}
	}
}

// openDB opens a workspace database as the next agent process would: read
// and write, never create. Write access is needed because opening a
// database that a killed process left with a hot journal rolls it back
// first; the tests only read.
func (h *harness) openDB(name string) *sql.DB {
	h.t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(h.home, name)+"?mode=rw&_busy_timeout=10000")
	if err != nil {
		h.t.Fatal(err)
	}
	return db
}

// integrity runs PRAGMA integrity_check on a workspace database; for
// index.db it also has FTS5 compare its index with the chunks it indexes.
// A missing index.db is fine (it is rebuilt on demand); a missing state.db
// is not.
func (h *harness) integrity(name string) error {
	h.t.Helper()
	if _, err := os.Stat(filepath.Join(h.home, name)); errors.Is(err, os.ErrNotExist) && name == "index.db" {
		return nil
	}
	db := h.openDB(name)
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("%s: integrity_check: %w", name, err)
	}
	if res != "ok" {
		return fmt.Errorf("%s: integrity_check: %s", name, res)
	}
	if name == "index.db" {
		// rank 1: also check the index against its external content table.
		if _, err := db.Exec(sqlFTSIntegrity); err != nil {
			return fmt.Errorf("%s: fts5 integrity-check: %w", name, err)
		}
	}
	return nil
}

// The index.db queries the tests inspect it with. They read the index
// engineer's schema (index/schema.sql) directly, so that "the same chunks"
// means the same rows, not the same search results.
const (
	sqlDumpChunks = `SELECT f.path, c.start_line, c.end_line, c.heading, c.date, c.text
		FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.start_line, c.end_line`
	sqlFTSIntegrity = `INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`
)

// chunks dumps every chunk the index holds, one string per chunk.
func (h *harness) chunks() []string {
	h.t.Helper()
	db := h.openDB("index.db")
	defer db.Close()
	rows, err := db.Query(sqlDumpChunks)
	if err != nil {
		h.t.Fatalf("dump index.db: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var path, heading, date, text string
		var start, end int
		if err := rows.Scan(&path, &start, &end, &heading, &date, &text); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s:%d-%d [%s] %s\n%s", path, start, end, heading, date, text))
	}
	if err := rows.Err(); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// sameChunks fails the test unless got equals a fresh `--full` rebuild,
// naming the first chunks that differ.
func (h *harness) sameChunksAsFullRebuild(got []string, when string) {
	h.t.Helper()
	h.must("", "-q", "memory", "reindex", "--full")
	want := h.chunks()
	if slices.Equal(got, want) {
		return
	}
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			h.t.Fatalf("%s: the index differs from a --full rebuild (%d chunks vs %d); first difference at chunk %d:\nindex:   %q\nrebuild: %q",
				when, len(got), len(want), i, clipTestOut(g), clipTestOut(w))
		}
	}
}

// statusJSON reads `agent memory status --json`.
func (h *harness) status() statusJSON {
	h.t.Helper()
	var st statusJSON
	if err := json.Unmarshal([]byte(h.must("", "--json", "memory", "status")), &st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

// stressLog records every process a stress worker ran.
type stressLog struct {
	mu      sync.Mutex
	results map[string][]result // by worker
	bad     []string
}

func (l *stressLog) add(worker string, r result, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.results[worker] = append(l.results[worker], r)
	if !ok {
		l.bad = append(l.bad, worker+": "+r.String())
	}
}

// TestStressConcurrentProcesses runs every kind of writer and reader as
// separate agent processes on one workspace at once: a memory watch, loops
// of log, memory add, reindex, one-shot chat, profile set, soul edit/revert
// and readers. Then nothing may have failed or printed an error (in
// particular no "database is locked"), every note and fact is present
// exactly once and whole, the index equals a fresh --full rebuild, the
// profile history holds every set, SOUL.md's revisions every save, and the
// sessions every chat turn.
func TestStressConcurrentProcesses(t *testing.T) {
	h := newHarness(t)
	srv := h.fakeOllama()
	const reply = "Noted, and kept."
	srv.Default(ollamatest.Text(reply))
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	h.must("", "profile", "set", "user.timezone", "UTC")
	editor := filepath.Join(h.dir, "editor.sh")
	// The editor adds one line naming the process, so every save differs.
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf -- '- stress edit %s\\n' \"$STRESS_EDIT\" >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	initialSoul := h.read("SOUL.md")

	d := stressDuration(t)
	deadline := time.Now().Add(d)
	log := &stressLog{results: map[string][]result{}}

	// The watcher runs for the whole test and is stopped with SIGINT.
	watchCmd, watchOut, watchErr := h.command("", nil, "-q", "memory", "watch")
	if err := watchCmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchDone := make(chan result, 1)
	go func() { watchDone <- wait(watchCmd, watchOut, watchErr, []string{"-q", "memory", "watch"}) }()

	clean := func(r result) bool { return r.code == 0 && r.stderr == "" }
	type worker struct {
		name string
		step func(i int) (result, bool)
	}
	workers := []worker{}
	for w := 0; w < 2; w++ {
		workers = append(workers,
			worker{fmt.Sprintf("log%d", w), func(i int) (result, bool) {
				r := h.run(fmt.Sprintf("stress-log %d-%d alpha\nsecond line %d-%d\n", w, i, w, i), "-q", "log", "-")
				return r, clean(r)
			}},
			worker{fmt.Sprintf("add%d", w), func(i int) (result, bool) {
				args := []string{"-q", "memory", "add", fmt.Sprintf("fact-%d-%d", w, i)}
				if i%2 == 1 {
					args = append(args, "--section", "Stress") // an append at the end; the default section is a mid-file rewrite
				}
				r := h.run("", args...)
				return r, clean(r)
			}},
			worker{fmt.Sprintf("chat%d", w), func(i int) (result, bool) {
				r := h.run("", "-q", "chat", fmt.Sprintf("chat-%d-%d what did I note?", w, i))
				return r, clean(r) && r.stdout == reply+"\n"
			}},
		)
	}
	workers = append(workers,
		worker{"reindex", func(i int) (result, bool) {
			args := []string{"-q", "memory", "reindex"}
			if i%4 == 3 {
				args = append(args, "--full")
			}
			r := h.run("", args...)
			return r, clean(r)
		}},
		worker{"profile", func(i int) (result, bool) {
			r := h.run("", "-q", "profile", "set", "user.pref.stress", fmt.Sprintf("value %d", i))
			return r, clean(r)
		}},
		worker{"soul", func(i int) (result, bool) {
			if i%2 == 1 {
				r := h.run("", "-q", "soul", "revert", "1")
				return r, clean(r)
			}
			r := h.runEnv("", []string{"EDITOR=" + editor, fmt.Sprintf("STRESS_EDIT=%d", i)}, "-q", "soul", "edit")
			return r, clean(r)
		}},
		worker{"reader", func(i int) (result, bool) {
			reads := [][]string{
				{"memory", "search", "stress"},
				{"sessions", "list"},
				{"profile", "show"},
				{"soul", "show"},
				{"--json", "memory", "status"},
				{"prompt", "what did I note?"},
				{"profile", "history"},
			}
			read := reads[i%len(reads)]
			r := h.run("", append([]string{"-q"}, read...)...)
			// No hit yet, no session yet: exit 3, as documented.
			notFoundOK := read[0] == "memory" || read[0] == "sessions"
			return r, r.stderr == "" && (r.code == 0 || r.code == exitNotFound && notFoundOK)
		}},
	)
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				r, ok := w.step(i)
				log.add(w.name, r, ok)
			}
		}()
	}
	wg.Wait()

	for _, b := range log.bad {
		t.Errorf("unexpected: %s", b)
	}
	for w, rs := range log.results {
		for _, r := range rs {
			if strings.Contains(r.stderr, "database is locked") || strings.Contains(r.stderr, "SQLITE_BUSY") {
				t.Errorf("%s: %s", w, r)
			}
		}
	}

	// The watcher keeps the index current: once it has caught up with the
	// last writes, the index holds exactly what a rebuild from the files
	// would. The wait is bounded; only its outcome is asserted.
	for end := time.Now().Add(60 * time.Second); ; {
		if st := h.status(); st.Changed == 0 && st.Rebuild == "" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("memory watch did not catch up with the files within a minute: %+v", h.status())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := h.integrity("index.db"); err != nil {
		t.Error(err)
	}
	watched := h.chunks()
	watchCmd.Process.Signal(os.Interrupt)
	if r := <-watchDone; r.code != 0 || r.stderr != "" {
		t.Errorf("memory watch: %s", r)
	}
	h.sameChunksAsFullRebuild(watched, "after the stress, as kept by memory watch")
	if err := h.integrity("state.db"); err != nil {
		t.Error(err)
	}

	// Every note and fact that was reported written is there exactly once,
	// whole; the rest of the files is intact.
	logs, mem := h.logs(), h.read("MEMORY.md")
	count := func(name string) int { return len(log.results[name]) }
	lost := 0
	for w := 0; w < 2; w++ {
		for i, r := range log.results[fmt.Sprintf("log%d", w)] {
			want := 0
			if clean(r) {
				want = 1
			}
			if n := strings.Count(logs, fmt.Sprintf("\nstress-log %d-%d alpha\nsecond line %d-%d\n", w, i, w, i)); n != want {
				t.Errorf("note %d-%d appears %d times (want %d)", w, i, n, want)
				lost++
			}
		}
		for i, r := range log.results[fmt.Sprintf("add%d", w)] {
			want := 0
			if clean(r) {
				want = 1
			}
			if n := strings.Count(mem, fmt.Sprintf("\n- fact-%d-%d\n", w, i)); n != want {
				t.Errorf("fact %d-%d appears %d times (want %d)", w, i, n, want)
				lost++
			}
		}
	}
	if !strings.HasPrefix(mem, "# Memory\n") || strings.Count(mem, "\n## User Facts\n") != 1 || strings.Count(mem, "\n## Stress\n") != 1 {
		t.Errorf("MEMORY.md lost its structure:\n%s", clipTestOut(mem))
	}
	h.checkLogTitles()

	// Every chat turn reported answered is stored, with its reply, and
	// logged once.
	var sessions []struct {
		Turns         int    `json:"turns"`
		LastUser      string `json:"last_user"`
		LastAssistant string `json:"last_assistant"`
	}
	if err := json.Unmarshal([]byte(h.must("", "--json", "sessions", "list", "-n", "1000000")), &sessions); err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for _, s := range sessions {
		if s.Turns == 1 && s.LastAssistant == reply {
			stored[s.LastUser]++
		}
	}
	chats := 0
	for w := 0; w < 2; w++ {
		for i, r := range log.results[fmt.Sprintf("chat%d", w)] {
			msg := fmt.Sprintf("chat-%d-%d what did I note?", w, i)
			if r.code != 0 {
				continue
			}
			chats++
			if stored[msg] != 1 {
				t.Errorf("chat turn %q answered but stored %d times", msg, stored[msg])
				lost++
			}
			if n := strings.Count(logs, "**User:** "+msg+"\n"); n != 1 {
				t.Errorf("chat turn %q logged %d times", msg, n)
				lost++
			}
		}
	}

	// The profile history holds every set, the soul history every save.
	var changes []struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal([]byte(h.must("", "--json", "profile", "history")), &changes); err != nil {
		t.Fatal(err)
	}
	sets := 0
	for _, r := range log.results["profile"] {
		if clean(r) {
			sets++
		}
	}
	recorded := 0
	for _, c := range changes {
		if c.Key == "user.pref.stress" {
			recorded++
		}
	}
	if recorded != sets {
		t.Errorf("profile history has %d changes of user.pref.stress, %d sets succeeded", recorded, sets)
	}
	var revs []soulRevisionJSON
	if err := json.Unmarshal([]byte(h.must("", "--json", "soul", "history")), &revs); err != nil {
		t.Fatal(err)
	}
	saves := 0
	for _, r := range log.results["soul"] {
		if clean(r) {
			saves++
		}
	}
	if len(revs) != 1+saves {
		t.Errorf("soul history has %d revisions, want 1 + %d saves", len(revs), saves)
	}
	if soul := h.read("SOUL.md"); !strings.HasPrefix(soul, initialSoul) {
		t.Errorf("SOUL.md is neither the initial persona nor an edit of it:\n%s", clipTestOut(soul))
	}

	procs := 1
	for _, w := range workers {
		procs += count(w.name)
	}
	t.Logf("stress: %d workers + memory watch held %s; %d processes (%d notes, %d facts, %d reindexes, %d chat turns, %d profile sets, %d soul saves, %d reads); %d index chunks; lines lost: %d",
		len(workers), d.Round(time.Second), procs, count("log0")+count("log1"), count("add0")+count("add1"), count("reindex"),
		chats, sets, saves, count("reader"), len(watched), lost)
}
