package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	_ "github.com/mattn/go-sqlite3"
)

// openDB opens (creating) a real state.db with this package's schema, as
// core opens it (immediate write transactions).
func openDB(t testing.TB, file string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+file+"?mode=rwc&_busy_timeout=10000&_txlock=immediate&_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'jobs'`).Scan(&n)
	if n > 0 {
		return db
	}
	names, _ := fs.Glob(Migrations, "migrations/*.sql")
	for _, name := range names {
		body, _ := fs.ReadFile(Migrations, name)
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return db
}

// clock is a fake clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time)     { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// fakeRunner answers each run with the next scripted result (the last one
// repeats) and records the commands it was given.
type fakeRunner struct {
	results []Result
	calls   [][]string
}

func (f *fakeRunner) run(_ context.Context, args []string) Result {
	f.calls = append(f.calls, args)
	r := f.results[0]
	if len(f.results) > 1 {
		f.results = f.results[1:]
	}
	return r
}

type logEntry struct{ at, heading, body string }

type fixture struct {
	db     *sql.DB
	clock  *clock
	store  *Store
	runner *fakeRunner
	logged []logEntry
	ticker *Ticker
}

func newFixture(t *testing.T, start string, results ...Result) *fixture {
	f := &fixture{db: openDB(t, filepath.Join(t.TempDir(), "state.db")), clock: &clock{t: utc(start)}, runner: &fakeRunner{results: results}}
	f.store = NewStore(f.db, f.clock.now)
	loc := mustLoad(t, "Europe/Berlin")
	f.ticker = &Ticker{Store: f.store, Run: f.runner.run, Loc: loc, Log: func(at time.Time, heading, body string) error {
		f.logged = append(f.logged, logEntry{at.Format("2006-01-02"), heading, body})
		return nil
	}}
	return f
}

func (f *fixture) tick(t *testing.T) []Outcome {
	t.Helper()
	out, err := f.ticker.Tick(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMissedWindowAfterAWeekOfflineRunsOnce(t *testing.T) {
	f := newFixture(t, "2026-11-23T12:00:00Z", Result{Stdout: "distilled 3 entries\n"})
	ctx := context.Background()
	berlin := mustLoad(t, "Europe/Berlin")
	j, err := f.store.Add(ctx, "digest", "0 8 * * *", berlin, []string{"memory", "distill"})
	if err != nil {
		t.Fatal(err)
	}
	if !j.NextAt.Equal(utc("2026-11-24T07:00:00Z")) {
		t.Fatalf("first due %s", j.NextAt)
	}
	if out := f.tick(t); len(out) != 0 {
		t.Fatalf("ran before due: %+v", out)
	}
	// Seven 08:00 windows pass with the machine off.
	f.clock.set(utc("2026-11-30T19:42:00Z"))
	out := f.tick(t)
	if len(out) != 1 || out[0].Status != "ok" || len(f.runner.calls) != 1 {
		t.Fatalf("after a week: %+v, calls %q", out, f.runner.calls)
	}
	if out := f.tick(t); len(out) != 0 {
		t.Fatalf("a second tick ran a missed window again: %+v", out)
	}
	j, _ = f.store.Get(ctx, "digest")
	if !j.NextAt.Equal(utc("2026-12-01T07:00:00Z")) || j.LastStatus != "ok" {
		t.Fatalf("next due %s, last %q", j.NextAt, j.LastStatus)
	}
	// The output lands in the user's day (Berlin: already 1 December? no,
	// 20:42 on 30 November) under the job's heading, and in the history.
	if len(f.logged) != 1 || f.logged[0] != (logEntry{"2026-11-30", "20:42 job digest", "distilled 3 entries"}) {
		t.Fatalf("logged %+v", f.logged)
	}
	runs, _ := f.store.Runs(ctx, "digest", 10)
	if len(runs) != 1 || runs[0].Status != "ok" || runs[0].ScheduledAt != "2026-11-24T07:00:00Z" || runs[0].Stdout != "distilled 3 entries\n" || runs[0].Trigger != "tick" {
		t.Fatalf("history %+v", runs)
	}
}

func TestFailuresInARowDisable(t *testing.T) {
	fail := Result{ExitCode: 1, Stderr: "agent: unusable state.db: corrupt\n"}
	f := newFixture(t, "2026-11-23T12:00:00Z", fail, fail, Result{}, fail)
	ctx := context.Background()
	if _, err := f.store.Add(ctx, "idx", "every 1h", time.UTC, []string{"memory", "reindex"}); err != nil {
		t.Fatal(err)
	}
	statuses := func() []string {
		var s []string
		for i := 0; i < 8; i++ {
			f.clock.add(time.Hour)
			for _, o := range f.tick(t) {
				s = append(s, fmt.Sprintf("%s%v", o.Status, map[bool]string{true: "+disabled"}[o.Disabled]))
			}
		}
		return s
	}()
	// Two failures, a success resets the count, then five in a row disable it.
	want := "failed failed ok failed failed failed failed failed+disabled"
	if strings.Join(statuses, " ") != want {
		t.Fatalf("runs: %s\nwant: %s", strings.Join(statuses, " "), want)
	}
	j, _ := f.store.Get(ctx, "idx")
	reason := "disabled after 5 failures in a row (last: exit 1: unusable state.db: corrupt)"
	if j.Enabled || j.Failures != 5 || j.DisabledReason != reason {
		t.Fatalf("job %+v", j)
	}
	if f.logged[0].body != "failed: exit 1: unusable state.db: corrupt" {
		t.Fatalf("log body %q", f.logged[0].body)
	}
	lines, _ := Identity(ctx, f.db)
	if len(lines) != 1 || lines[0] != "memory reindex (job idx): "+reason+"; the user can re-enable it with: agent jobs enable idx" {
		t.Fatalf("identity %q", lines)
	}
	ok, detail, fix, err := Health(ctx, f.db, f.clock.now())
	if ok || err != nil || detail != "job idx "+reason || !strings.Contains(fix, "agent jobs enable idx") {
		t.Fatalf("health %v %q %q %v", ok, detail, fix, err)
	}
	// Enabling starts afresh.
	if j, _ = f.store.SetEnabled(ctx, "idx", true); !j.Enabled || j.Failures != 0 || j.DisabledReason != "" {
		t.Fatalf("enabled %+v", j)
	}
	if ok, _, _, _ := Health(ctx, f.db, f.clock.now()); !ok {
		t.Fatal("still unhealthy after enable")
	}
}

func TestOllamaDownDefersWithoutCountingAFailure(t *testing.T) {
	down := Result{ExitCode: ExitUnavailable, Stderr: "agent: cannot reach Ollama\n"}
	f := newFixture(t, "2026-11-23T12:00:00Z", down, down, down, down, down, down, Result{Stdout: "Good morning."})
	ctx := context.Background()
	f.store.Add(ctx, "brief", "@daily", time.UTC, []string{"chat", "Write my morning brief"})
	f.clock.set(utc("2026-11-24T00:01:00Z"))
	for i := 0; i < 6; i++ {
		out := f.tick(t)
		if len(out) != 1 || out[0].Status != "deferred" {
			t.Fatalf("tick %d: %+v", i, out)
		}
		f.clock.add(5 * time.Minute)
	}
	j, _ := f.store.Get(ctx, "brief")
	if !j.Enabled || j.Failures != 0 || !j.NextAt.Equal(utc("2026-11-24T00:00:00Z")) {
		t.Fatalf("after deferrals %+v", j)
	}
	if len(f.logged) != 0 {
		t.Fatalf("deferred runs logged: %+v", f.logged)
	}
	out := f.tick(t)
	if len(out) != 1 || out[0].Status != "ok" || len(f.logged) != 1 || f.logged[0].body != "Good morning." {
		t.Fatalf("after Ollama came back: %+v %+v", out, f.logged)
	}
	if j, _ = f.store.Get(ctx, "brief"); !j.NextAt.Equal(utc("2026-11-25T00:00:00Z")) {
		t.Fatalf("next %s", j.NextAt)
	}
}

func TestRunNowKeepsTheSchedule(t *testing.T) {
	f := newFixture(t, "2026-11-23T12:00:00Z", Result{Stdout: "ok"})
	ctx := context.Background()
	j, _ := f.store.Add(ctx, "note", "@weekly", time.UTC, []string{"log", "weekly check"})
	o, err := f.ticker.RunNow(ctx, "note")
	if err != nil || o.Status != "ok" {
		t.Fatalf("%+v %v", o, err)
	}
	after, _ := f.store.Get(ctx, "note")
	if !after.NextAt.Equal(j.NextAt) {
		t.Fatalf("run moved the schedule: %s -> %s", j.NextAt, after.NextAt)
	}
	if _, err := f.ticker.RunNow(ctx, "nosuch"); err == nil || !strings.Contains(err.Error(), "no job named nosuch") {
		t.Fatalf("unknown job: %v", err)
	}
}

func TestOnlyAgentCommandsAreAccepted(t *testing.T) {
	f := newFixture(t, "2026-11-23T12:00:00Z", Result{})
	ctx := context.Background()
	for _, args := range [][]string{
		{"sh", "-c", "rm -rf ~"},
		{"/bin/agent", "chat"},
		{"jobs", "tick"},
		{"memory"},
		{"memory", "search", "x"},
		{"--home", "/tmp", "chat", "hi"},
		{"chat", "--home=/tmp", "hi"},
		{},
	} {
		_, err := f.store.Add(ctx, "x", "@daily", time.UTC, args)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%q accepted: %v", args, err)
		}
	}
	if l, _ := f.store.List(ctx); len(l) != 0 {
		t.Fatalf("stored %+v", l)
	}
	for _, args := range [][]string{{"chat", "hello"}, {"log", "x"}, {"memory", "add", "x"}, {"memory", "distill", "week"}, {"memory", "reindex", "--full"}} {
		name := strings.Join(args[:2], "-")
		if _, err := f.store.Add(ctx, name, "@daily", time.UTC, args); err != nil {
			t.Errorf("%q refused: %v", args, err)
		}
	}
	if _, err := f.store.Add(ctx, "chat-hello", "@daily", time.UTC, []string{"chat", "again"}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("duplicate name: %v", err)
	}
	for _, bad := range []string{"bad name", "", "-x", ".x", "ä", strings.Repeat("a", 41)} {
		if _, err := f.store.Add(ctx, bad, "@daily", time.UTC, []string{"chat", "x"}); !errors.Is(err, ErrInvalid) {
			t.Errorf("name %q: %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := f.store.Add(ctx, strings.Repeat("a", 40), "@daily", time.UTC, []string{"chat", "x"}); err != nil {
		t.Errorf("a 40-character name refused: %v", err)
	}
}

func TestIdentityStableAndInWords(t *testing.T) {
	f := newFixture(t, "2026-11-23T12:00:00Z", Result{Stdout: "x"})
	ctx := context.Background()
	berlin := mustLoad(t, "Europe/Berlin")
	f.store.Add(ctx, "distill", "0 3 * * 1", berlin, []string{"memory", "distill"})
	f.store.Add(ctx, "brief", "0 8 * * *", berlin, []string{"chat", "Write my morning brief from today's log and pending reminders"})
	f.store.Add(ctx, "off", "@hourly", berlin, []string{"memory", "reindex"})
	f.store.SetEnabled(ctx, "off", false)
	before, err := Identity(ctx, f.db)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"chat Write my morning brief from today's log and pending re…: daily, 08:00 Europe/Berlin (job brief)",
		"memory distill: weekly, Mon 03:00 Europe/Berlin (job distill)",
	}
	if strings.Join(before, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s", strings.Join(before, "\n"))
	}
	f.clock.set(utc("2026-11-30T12:00:00Z"))
	f.tick(t) // both run: last_at and next_at move, the lines do not
	if after, _ := Identity(ctx, f.db); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("lines moved with a run:\n%q\n%q", before, after)
	}
}

// The overlap test runs ticks in separate processes: this test binary,
// started again with tickHelperEnv set, is one tick over the named state.db.
const tickHelperEnv = "JOBS_TEST_TICK_HELPER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(tickHelperEnv); dir != "" {
		os.Exit(tickHelper(dir))
	}
	os.Exit(m.Run())
}

// tickHelper ticks at a fixed time. Its runner appends "job NAME" to
// dir/ran, and for a job named "slow" creates dir/started and waits for
// dir/release to exist.
func tickHelper(dir string) int {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "state.db")+"?mode=rw&_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	now := func() time.Time { return utc("2026-11-24T12:00:00Z") }
	run := func(_ context.Context, args []string) Result {
		f, err := os.OpenFile(filepath.Join(dir, "ran"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return Result{Err: err}
		}
		fmt.Fprintln(f, strings.Join(args, " "))
		f.Close()
		if args[len(args)-1] == "slow" {
			os.WriteFile(filepath.Join(dir, "started"), nil, 0o600)
			for {
				if _, err := os.Stat(filepath.Join(dir, "release")); err == nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		return Result{}
	}
	tk := &Ticker{Store: NewStore(db, now), Run: run, Loc: time.UTC}
	out, err := tk.Tick(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(len(out))
	return 0
}

func startTick(t *testing.T, dir string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), tickHelperEnv+"="+dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

func TestOverlappingTicksInTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, filepath.Join(dir, "state.db"))
	st := NewStore(db, func() time.Time { return utc("2026-11-23T12:00:00Z") })
	ctx := context.Background()
	st.Add(ctx, "slow", "@daily", time.UTC, []string{"log", "slow"})

	// A tick runs the slow job; a second tick while it runs must not.
	a, aOut := startTick(t, dir)
	waitFor(t, filepath.Join(dir, "started"))
	b, bOut := startTick(t, dir)
	if err := b.Wait(); err != nil || strings.TrimSpace(bOut.String()) != "0" {
		t.Fatalf("second tick: %v %q", err, bOut.String())
	}
	os.WriteFile(filepath.Join(dir, "release"), nil, 0o600)
	if err := a.Wait(); err != nil || strings.TrimSpace(aOut.String()) != "1" {
		t.Fatalf("first tick: %v %q", err, aOut.String())
	}

	// Ticks started together share the due jobs: each runs exactly once.
	for i := 0; i < 6; i++ {
		st.Add(ctx, fmt.Sprintf("j%d", i), "@daily", time.UTC, []string{"log", fmt.Sprintf("j%d", i)})
	}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := 0; i < 3; i++ {
		c, o := startTick(t, dir)
		cmds, outs = append(cmds, c), append(outs, o)
	}
	total := 0
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("tick %d: %v %s", i, err, outs[i])
		}
		var n int
		fmt.Sscan(outs[i].String(), &n)
		total += n
	}
	ran, _ := os.ReadFile(filepath.Join(dir, "ran"))
	lines := strings.Split(strings.TrimSpace(string(ran)), "\n")
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	if total != 6 || len(lines) != 7 || len(seen) != 7 {
		t.Fatalf("runs reported %d; ran:\n%s", total, ran)
	}
	runs, _ := st.Runs(ctx, "", 100)
	if len(runs) != 7 {
		t.Fatalf("history has %d runs", len(runs))
	}
}

// A run whose process died (kill -9, a crash, a reboot) is recorded as
// failed, lost, when the job is next claimed, past the lease; before the lease the
// claim is still the dead process's and nothing runs beside it.
func TestDeadRunIsRecordedLost(t *testing.T) {
	f := newFixture(t, "2026-11-23T12:00:00Z", Result{Stdout: "ok"})
	ctx := context.Background()
	if _, err := f.store.Add(ctx, "note", "@hourly", time.UTC, []string{"log", "hourly"}); err != nil {
		t.Fatal(err)
	}
	j, _ := f.store.Get(ctx, "note")
	// A process claims the job and dies without finishing.
	if _, ok, err := f.ticker.claim(ctx, j, f.clock.now(), false); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	f.clock.add(10 * time.Minute)
	if _, err := f.ticker.RunNow(ctx, "note"); err == nil || !strings.Contains(err.Error(), "running in another process") {
		t.Fatalf("run beside a live claim: %v", err)
	}
	f.clock.add(claimLease)
	o, err := f.ticker.RunNow(ctx, "note")
	if err != nil || o.Status != "ok" {
		t.Fatalf("run after the lease: %+v %v", o, err)
	}
	runs, err := f.store.Runs(ctx, "note", 10)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	if runs[0].Status != "ok" || runs[1].Status != "failed" || runs[1].ExitCode == nil || *runs[1].ExitCode != -1 || runs[1].FinishedAt == "" || !strings.HasPrefix(runs[1].Stderr, "lost: the process running it ended") {
		t.Fatalf("runs: %+v", runs)
	}
}

// A job whose every run is deferred (Ollama unreachable) is healthy for an
// hour, then shows in doctor with when it began; a run that ends clears it.
// Its history keeps the last KeepRuns runs, however long Ollama stays down.
func TestDeferredForAnHourShowsAndHistoryIsBounded(t *testing.T) {
	down := Result{ExitCode: ExitUnavailable, Stderr: "agent: cannot reach Ollama\n"}
	f := newFixture(t, "2026-11-23T12:00:00Z", down)
	ctx := context.Background()
	f.store.Add(ctx, "brief", "@daily", time.UTC, []string{"chat", "Write my morning brief"})
	f.store.Add(ctx, "other", "@daily", time.UTC, []string{"memory", "reindex"})
	f.clock.set(utc("2026-11-24T00:01:00Z"))
	for i := 0; i < 150; i++ {
		out := f.tick(t)
		if len(out) != 2 || out[0].Status != "deferred" {
			t.Fatalf("tick %d: %+v", i, out)
		}
		ok, detail, _, err := Health(ctx, f.db, f.clock.now())
		if err != nil {
			t.Fatal(err)
		}
		if i < 60 && !ok {
			t.Fatalf("after %d minutes deferred: unhealthy already: %s", i, detail)
		}
		if i >= 60 && (ok || !strings.Contains(detail, "job brief: every run deferred since Tue 2026-11-24 00:01 UTC (Ollama or the model unavailable)")) {
			t.Fatalf("after %d minutes deferred: %v %q", i, ok, detail)
		}
		f.clock.add(time.Minute)
	}
	_, _, fix, _ := Health(ctx, f.db, f.clock.now())
	if !strings.Contains(fix, "agent doctor") && !strings.Contains(fix, "ollama") {
		t.Errorf("fix %q", fix)
	}
	for _, name := range []string{"brief", "other"} {
		var n int
		f.db.QueryRow(`SELECT count(*) FROM job_runs WHERE job_name = ?`, name).Scan(&n)
		if n != KeepRuns {
			t.Errorf("job %s keeps %d runs, want %d", name, n, KeepRuns)
		}
	}
	runs, _ := f.store.Runs(ctx, "brief", 1)
	if len(runs) != 1 || runs[0].StartedAt != "2026-11-24T02:30:00Z" {
		t.Errorf("the newest run was not kept: %+v", runs)
	}
	f.runner.results = []Result{{Stdout: "Good morning."}}
	f.tick(t)
	if ok, detail, _, _ := Health(ctx, f.db, f.clock.now()); !ok {
		t.Errorf("still unhealthy after the runs went through: %s", detail)
	}
}

// A job deferred during an outage and then disabled starts afresh when it
// is enabled again: an old deferral does not make doctor call it stuck.
func TestEnablingForgetsAnOldDeferral(t *testing.T) {
	down := Result{ExitCode: ExitUnavailable, Stderr: "agent: cannot reach Ollama\n"}
	f := newFixture(t, "2026-11-23T12:00:00Z", down)
	ctx := context.Background()
	f.store.Add(ctx, "brief", "* * * * *", time.UTC, []string{"chat", "Write my morning brief"})
	f.clock.set(utc("2026-11-24T00:01:00Z"))
	for i := 0; i < 30; i++ {
		f.tick(t)
		f.clock.add(time.Minute)
	}
	if _, err := f.store.SetEnabled(ctx, "brief", false); err != nil {
		t.Fatal(err)
	}
	f.clock.add(2 * time.Hour)
	if _, err := f.store.SetEnabled(ctx, "brief", true); err != nil {
		t.Fatal(err)
	}
	if ok, detail, _, err := Health(ctx, f.db, f.clock.now()); err != nil || !ok {
		t.Errorf("enabled again, it is reported stuck at once: %v %q", err, detail)
	}
	f.tick(t) // deferred once more: a new deferral, from now
	if ok, detail, _, err := Health(ctx, f.db, f.clock.now()); err != nil || !ok {
		t.Errorf("one deferral after enabling is reported stuck: %v %q", err, detail)
	}
}

// A job disabled by failures does not hide another whose every run has been
// deferred for an hour: doctor names both, with both fixes.
func TestHealthShowsDisabledAndDeferredTogether(t *testing.T) {
	fail := Result{ExitCode: 1, Stderr: "agent: unusable state.db: corrupt\n"}
	down := Result{ExitCode: ExitUnavailable, Stderr: "agent: cannot reach Ollama\n"}
	f := newFixture(t, "2026-11-23T12:00:00Z", fail, fail, fail, fail, fail, down)
	ctx := context.Background()
	f.store.Add(ctx, "idx", "* * * * *", time.UTC, []string{"memory", "reindex"})
	f.clock.set(utc("2026-11-24T00:01:00Z"))
	for i := 0; i < 5; i++ {
		f.tick(t)
		f.clock.add(time.Minute)
	}
	if j, _ := f.store.Get(ctx, "idx"); j.Enabled || j.DisabledReason == "" {
		t.Fatalf("not disabled: %+v", j)
	}
	f.store.Add(ctx, "brief", "* * * * *", time.UTC, []string{"chat", "Write my morning brief"})
	for i := 0; i <= 61; i++ {
		f.clock.add(time.Minute)
		if out := f.tick(t); len(out) != 1 || out[0].Status != "deferred" {
			t.Fatalf("tick %d: %+v", i, out)
		}
	}
	ok, detail, fix, err := Health(ctx, f.db, f.clock.now())
	if err != nil || ok {
		t.Fatalf("health %v %q %v", ok, detail, err)
	}
	for _, want := range []string{"job idx disabled after 5 failures in a row", "job brief: every run deferred since Tue 2026-11-24 00:07 UTC"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q lacks %q", detail, want)
		}
	}
	for _, want := range []string{"agent jobs enable idx", "the ollama and model lines"} {
		if !strings.Contains(fix, want) {
			t.Errorf("fix %q lacks %q", fix, want)
		}
	}
}

// TestClipCutsBeforeACharacter: a job's output over the bound is cut
// between characters, so its history stays valid UTF-8.
func TestClipCutsBeforeACharacter(t *testing.T) {
	s := strings.Repeat("a", maxOutput-1) + "é and more"
	got := clip(s)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "\n… (cut)") || strings.Contains(got, "é") {
		t.Fatalf("clip gave %d bytes, valid %v, ending %q", len(got), utf8.ValidString(got), got[len(got)-12:])
	}
	if clip("short") != "short" {
		t.Fatal("a short output was cut")
	}
}
