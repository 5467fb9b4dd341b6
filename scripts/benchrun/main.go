// Command benchrun measures the index figures of issue 3 against floors
// measured in the same run, and prints them as a table. scripts/bench.sh
// (make bench) builds bin/agent and calls it; see docs/cli-index.md.
//
// Every figure is whole-process wall time of a command started with
// exec (no shell in between), ours and its floor run alternately so that
// a noisy neighbour hurts both; the median of the runs is reported. Peak
// RSS comes from getrusage of the finished child.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"agent/index"
)

func main() {
	agent := flag.String("agent", "bin/agent", "the agent binary")
	gofloor := flag.String("gofloor", "", "the gofloor binary (scripts/benchrun/gofloor), for the search figures")
	stackfloor := flag.String("stackfloor", "", "gofloor built with -tags stackfloor, for the search figures")
	data := flag.String("data", "", "the bench data directory (ws-M.tar.gz, queries.txt)")
	work := flag.String("work", "", "scratch directory; workspaces are unpacked once and reused")
	runs := flag.Int("runs", 5, "runs per figure (build figures use fewer on the 96 MB workspace)")
	only := flag.String("only", "build,nochange,search,source,import", "figures to measure, comma-separated")
	printSQL := flag.String("print-sql", "", "print the SQL a chat's recall runs for this query (with -k, -home) and exit")
	k := flag.Int("k", index.DefaultK, "hits, for -print-sql")
	home := flag.String("home", "", "the workspace, for -print-sql")
	wallRuns := flag.Int("wall", 0, "time the command given after the flags this many times (after 3 warm-up runs) and print the median wall time in ms")
	gen := flag.String("gen", "", "write a generated export (plain: the 1,000-conversation JSON; odd: the 10,000-conversation odd-shapes JSON; bloated: the 256 MiB zip) to -gen-out and exit")
	genOut := flag.String("gen-out", "", "where -gen writes")
	flag.Parse()
	if *gen != "" {
		if err := generate(*gen, *genOut); err != nil {
			fail(err)
		}
		return
	}
	if *printSQL != "" {
		sql, err := searchSQL(*home, *printSQL, *k, false)
		if err != nil {
			fail(err)
		}
		fmt.Println(sql)
		return
	}
	if *wallRuns > 0 {
		if flag.NArg() == 0 {
			fail(errors.New("-wall needs a command"))
		}
		var walls []time.Duration
		for i := -3; i < *wallRuns; i++ {
			s, err := (cmd{argv: flag.Args(), okCodes: []int{0, 3}}).time()
			if err != nil {
				fail(err)
			}
			if i >= 0 {
				walls = append(walls, s.wall)
			}
		}
		fmt.Printf("%.1f\n", float64(median(walls).Microseconds())/1000)
		return
	}
	if *data == "" || *work == "" {
		fail(errors.New("usage: benchrun -agent BIN -data DIR -work DIR [-runs N]"))
	}
	if (*gofloor == "" || *stackfloor == "") && strings.Contains(*only, "search") {
		fail(errors.New("the search figures need -gofloor and -stackfloor"))
	}
	b := &bench{agent: abs(*agent), gofloor: abs(*gofloor), stackflr: abs(*stackfloor), data: abs(*data), work: abs(*work), runs: *runs, only: map[string]bool{}}
	for _, f := range strings.Split(*only, ",") {
		b.only[strings.TrimSpace(f)] = true
	}
	if err := b.run(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		fail(err)
	}
	return a
}

type bench struct {
	agent             string
	gofloor, stackflr string
	data, work        string
	runs              int
	only              map[string]bool
	rows              []row
}

type row struct {
	figure, ours, floor, ratio, target string
}

func (b *bench) run() error {
	if err := os.MkdirAll(b.work, 0o755); err != nil {
		return err
	}
	if len(b.only) == 1 && b.only["import"] { // needs no workspace of the bench data
		if err := b.imports(); err != nil {
			return err
		}
		b.print()
		return nil
	}
	wsM := filepath.Join(b.work, "ws-M")
	ws96 := filepath.Join(b.work, "ws-96")
	if err := b.prepare(wsM, ws96); err != nil {
		return err
	}
	queries, err := readLines(filepath.Join(b.data, "queries.txt"))
	if err != nil {
		return err
	}
	size96, _ := dirSize(filepath.Join(ws96, "logs"))
	note("workspaces: %s (%s), %s (%s of logs)", wsM, mb(mustSize(filepath.Join(wsM, "logs"))), ws96, mb(size96))

	// Full rebuild against raw FTS5 insertion of the same paragraphs.
	type target struct {
		dir, name string
		runs      int
	}
	for _, ws := range pick(b, "build", target{wsM, "ws-M", b.runs}, target{ws96, "96 MB", max(1, b.runs/2)}) {
		note("full reindex, %s (%d runs each)", ws.name, ws.runs)
		floorDB := filepath.Join(b.work, "floor-"+filepath.Base(ws.dir)+".db")
		floor := cmd{argv: []string{"sqlite3", floorDB}, stdin: ws.dir + ".import.sql", before: func() { os.Remove(floorDB) }}
		ours := cmd{argv: []string{b.agent, "-q", "--home", ws.dir, "memory", "reindex", "--full"}}
		o, f, err := b.pair(ours, floor, ws.runs)
		if err != nil {
			return err
		}
		target := "≤ 1.2×"
		if ws.dir == ws96 {
			target = "(scale)"
		}
		b.add("full reindex, "+ws.name, o.median, f.median, target)
		if ws.dir == ws96 {
			b.rows = append(b.rows, row{"peak RSS, full reindex, 96 MB", fmt.Sprintf("%.1f MB", float64(o.maxRSS)/1024), "—", "—", "≤ 80 MB"})
		}
	}

	if err := b.noChange(wsM); err != nil {
		return err
	}
	if err := b.search(wsM, ws96, queries); err != nil {
		return err
	}
	if err := b.sources(wsM); err != nil {
		return err
	}
	if err := b.imports(); err != nil {
		return err
	}
	b.print()
	return nil
}

// pick returns items when figure was asked for, else nothing.
func pick[T any](b *bench, figure string, items ...T) []T {
	if !b.only[figure] {
		return nil
	}
	return items
}

// noChange: a no-change reindex against a find stat walk of the same files.
func (b *bench) noChange(wsM string) error {
	if !b.only["nochange"] {
		return nil
	}
	note("no-change reindex, ws-M (%d runs each)", 3*b.runs)
	ours := cmd{argv: []string{b.agent, "-q", "--home", wsM, "memory", "reindex"}}
	if _, err := ours.time(); err != nil { // settle: the first run after a build re-hashes fresh files
		return err
	}
	find := cmd{argv: []string{"find", filepath.Join(wsM, "MEMORY.md"), filepath.Join(wsM, "logs"), "-name", "*.md", "-printf", "%s %T@\n"}}
	o, f, err := b.pair(ours, find, 3*b.runs)
	if err != nil {
		return err
	}
	b.add("no-change reindex, ws-M", o.median, f.median, "≤ 1.5×")
	return nil
}

// search: p50 over the queries of per-query medians, against the sqlite3 CLI
// running the same statement, and against gofloor (a minimal Go program
// running it through the prescribed driver). Two passes: with no watcher,
// where a fresh search walks the files, and with `agent memory watch`
// running, which vouches for the index so the search need not walk.
func (b *bench) search(wsM, ws96 string, queries []string) error {
	type target struct{ dir, name string }
	for _, ws := range pick(b, "search", target{wsM, "ws-M"}, target{ws96, "96 MB"}) {
		note("search p50 over %d queries, %s (%d runs each)", len(queries), ws.name, b.runs)
		if _, err := (cmd{argv: []string{b.agent, "-q", "--home", ws.dir, "memory", "reindex"}}).time(); err != nil {
			return err
		}
		search := func(q string, extra ...string) cmd {
			return cmd{argv: append([]string{b.agent, "--home", ws.dir, "memory", "search", q, "--json"}, extra...), okCodes: []int{0, 3}}
		}
		floors := func(q string) []cmd {
			sql, err := searchSQL(ws.dir, q, index.DefaultK, true)
			if err != nil {
				fail(err)
			}
			db := filepath.Join(ws.dir, index.FileName)
			return []cmd{{argv: []string{"sqlite3", db, sql}}, {argv: []string{b.gofloor, db, sql}}, {argv: []string{b.stackflr, db, sql}}}
		}
		var fresh, stale, watched, floor, gofloor, stackfloor, floorW []time.Duration
		for _, q := range queries {
			ts, err := b.interleave(b.runs, append([]cmd{search(q), search(q, "--no-refresh")}, floors(q)...)...)
			if err != nil {
				return err
			}
			fresh = append(fresh, ts[0].median)
			stale = append(stale, ts[1].median)
			floor = append(floor, ts[2].median)
			gofloor = append(gofloor, ts[3].median)
			stackfloor = append(stackfloor, ts[4].median)
		}
		note("… again with 'agent memory watch' running")
		stop, err := b.watch(ws.dir)
		if err != nil {
			return err
		}
		for _, q := range queries {
			ts, err := b.interleave(b.runs, search(q), floors(q)[0])
			if err != nil {
				stop()
				return err
			}
			watched = append(watched, ts[0].median)
			floorW = append(floorW, ts[1].median)
		}
		if err := stop(); err != nil {
			return err
		}
		b.add("search p50, "+ws.name+", `agent memory watch` running", median(watched), median(floorW), "(against the sqlite3 CLI)")
		b.add("search p50, "+ws.name+", no watcher (stat walk)", median(fresh), median(floor), "(against the sqlite3 CLI)")
		b.add("  … with --no-refresh, "+ws.name, median(stale), median(floor), "(info)")
		b.add("  Go floor: gofloor, same statement, "+ws.name, median(gofloor), median(floor), "(floor of Go + driver)")
		b.add("  stack floor: gofloor linking the prescribed libraries, "+ws.name, median(stackfloor), median(floor), "(floor of the stack)")
		b.add("  … watched search against the stack floor, "+ws.name, median(watched), median(stackfloor), "≤ 1.1×")
	}
	return nil
}

// watch starts `agent memory watch` on dir and returns once it answers for
// the index (its socket is there); stop interrupts it and waits.
func (b *bench) watch(dir string) (stop func() error, err error) {
	x := exec.Command(b.agent, "--home", dir, "memory", "watch")
	var stderr bytes.Buffer
	x.Stderr = &stderr
	if err := x.Start(); err != nil {
		return nil, err
	}
	stop = func() error {
		x.Process.Signal(os.Interrupt)
		if err := x.Wait(); err != nil {
			return fmt.Errorf("agent memory watch: %v: %s", err, stderr.String())
		}
		return nil
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(filepath.Join(dir, ".watch.sock")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return stop, nil
		}
	}
	stop()
	return nil, fmt.Errorf("agent memory watch never answered: %s", stderr.String())
}

// searchSQL is exactly the SQL agent's search for query runs on the index
// of home (index.Statements: a candidate statement per sub-query, then the
// fetch of the hits kept, with snippets as the CLI reads them or without as
// a chat's recall does), separated by ";\n" as the floors run them.
func searchSQL(home, query string, k int, snippets bool) (string, error) {
	ix, err := index.Open(context.Background(), home, nil)
	if err != nil {
		return "", err
	}
	defer ix.Close()
	stmts, err := ix.Statements(context.Background(), query, k, snippets)
	if err != nil {
		return "", err
	}
	return strings.Join(stmts, ";\n") + ";", nil
}

// prepare unpacks ws-M, derives the 96 MB workspace, initialises both and
// writes the floor's input: the workspace's paragraphs (split by the bench's
// own common.py, one row each) as CSV for the sqlite3 CLI's .import, which
// inserts them with one prepared statement in one transaction.
func (b *bench) prepare(wsM, ws96 string) error {
	if _, err := os.Stat(wsM); err != nil {
		note("unpacking ws-M.tar.gz")
		if err := run("tar", "-xzf", filepath.Join(b.data, "ws-M.tar.gz"), "-C", b.work); err != nil {
			return err
		}
	}
	if _, err := os.Stat(ws96); err != nil {
		note("building the 96 MB workspace (ws-M's logs five times, dates shifted)")
		if err := makeWS96(wsM, ws96); err != nil {
			return err
		}
	}
	for _, ws := range []string{wsM, ws96} {
		if err := run(b.agent, "-q", "--home", ws, "init"); err != nil {
			return err
		}
		if _, err := os.Stat(ws + ".import.sql"); err == nil {
			continue
		}
		note("extracting the paragraphs of %s for the floor", filepath.Base(ws))
		csv := ws + ".paragraphs.csv"
		if err := run("python3", "-c", paragraphsPy, filepath.Dir(b.data), ws, csv); err != nil {
			return err
		}
		script := "CREATE VIRTUAL TABLE chunks USING fts5(path UNINDEXED, start_line UNINDEXED, end_line UNINDEXED, heading, text);\n" +
			"BEGIN;\n.import --csv " + csv + " chunks\nCOMMIT;\n"
		if err := os.WriteFile(ws+".import.sql", []byte(script), 0o644); err != nil {
			return err
		}
	}
	return nil
}

const paragraphsPy = `
import csv, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from common import workspace_paragraphs
with open(sys.argv[3], "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    for p in workspace_paragraphs(sys.argv[2]):
        w.writerow([p["path"], p["start_line"], p["end_line"], p["heading"], p["text"]])
`

// makeWS96 copies ws-M and adds its logs four more times, each copy's dates
// (file name and "# YYYY-MM-DD" title) shifted by another 10,000 days.
func makeWS96(wsM, ws96 string) error {
	tmp := ws96 + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(tmp, "logs"), 0o755); err != nil {
		return err
	}
	mem, err := os.ReadFile(filepath.Join(wsM, "MEMORY.md"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "MEMORY.md"), mem, 0o644); err != nil {
		return err
	}
	ents, err := os.ReadDir(filepath.Join(wsM, "logs"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		day, err := time.Parse("2006-01-02", strings.TrimSuffix(e.Name(), ".md"))
		if err != nil {
			continue
		}
		body, err := os.ReadFile(filepath.Join(wsM, "logs", e.Name()))
		if err != nil {
			return err
		}
		for k := range 5 {
			d := day.AddDate(0, 0, 10000*k).Format("2006-01-02")
			out := bytes.Replace(body, []byte("# "+day.Format("2006-01-02")), []byte("# "+d), 1)
			if err := os.WriteFile(filepath.Join(tmp, "logs", d+".md"), out, 0o644); err != nil {
				return err
			}
		}
	}
	return os.Rename(tmp, ws96)
}

// cmd is one command to time.
type cmd struct {
	argv    []string
	stdin   string // file fed to standard input, if any
	before  func() // untimed preparation before each run
	okCodes []int  // exit codes that are not failures (default: 0)
}

type sample struct {
	wall   time.Duration
	maxRSS int64 // KiB
}

func (c cmd) time() (sample, error) {
	if c.before != nil {
		c.before()
	}
	x := exec.Command(c.argv[0], c.argv[1:]...)
	if c.stdin != "" {
		f, err := os.Open(c.stdin)
		if err != nil {
			return sample{}, err
		}
		defer f.Close()
		x.Stdin = f
	}
	// Files, not pipes: with a pipe, os/exec starts a goroutine to drain it
	// and Run waits for that too, which would be timed with the command.
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return sample{}, err
	}
	defer devnull.Close()
	errFile, err := os.CreateTemp("", "benchrun-stderr-")
	if err != nil {
		return sample{}, err
	}
	defer os.Remove(errFile.Name())
	defer errFile.Close()
	x.Stdout = devnull
	x.Stderr = errFile
	start := time.Now()
	err = x.Run()
	wall := time.Since(start)
	var stderr bytes.Buffer
	errFile.Seek(0, io.SeekStart)
	stderr.ReadFrom(errFile)
	if err != nil {
		var ee *exec.ExitError
		ok := false
		if errors.As(err, &ee) {
			for _, c := range c.okCodes {
				ok = ok || ee.ExitCode() == c
			}
		}
		if !ok {
			return sample{}, fmt.Errorf("%s: %v: %s", strings.Join(c.argv, " "), err, stderr.String())
		}
	}
	var rss int64
	if ru, ok := x.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return sample{wall, rss}, nil
}

type stat struct {
	median time.Duration
	maxRSS int64
}

// interleave runs the commands round-robin, runs times each, after one
// untimed warm-up round.
func (b *bench) interleave(runs int, cmds ...cmd) ([]stat, error) {
	walls := make([][]time.Duration, len(cmds))
	out := make([]stat, len(cmds))
	for r := -1; r < runs; r++ {
		for i, c := range cmds {
			s, err := c.time()
			if err != nil {
				return nil, err
			}
			if r >= 0 {
				walls[i] = append(walls[i], s.wall)
				out[i].maxRSS = max(out[i].maxRSS, s.maxRSS)
			}
		}
	}
	for i := range cmds {
		out[i].median = median(walls[i])
	}
	return out, nil
}

func (b *bench) pair(ours, floor cmd, runs int) (stat, stat, error) {
	s, err := b.interleave(runs, ours, floor)
	if err != nil {
		return stat{}, stat{}, err
	}
	return s[0], s[1], nil
}

func (b *bench) add(figure string, ours, floor time.Duration, target string) {
	b.rows = append(b.rows, row{figure, dur(ours), dur(floor), fmt.Sprintf("%.2f×", ours.Seconds()/floor.Seconds()), target})
}

func (b *bench) print() {
	fmt.Println("| figure | ours | floor | ratio | target |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range b.rows {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.figure, r.ours, r.floor, r.ratio, r.target)
	}
	fmt.Println()
	fmt.Println("Floors, measured in the same run: full reindex — the sqlite3 CLI inserting the same workspace's")
	fmt.Println("paragraphs (bench common.py split) into an FTS5 table with .import (one prepared statement, one")
	fmt.Println("transaction); no-change reindex — `find` printing size and mtime of every indexed file; search —")
	fmt.Println("the sqlite3 CLI running agent's own search statement on agent's index.db; the Go floor is")
	fmt.Println("gofloor, a minimal Go program running that statement through the same driver (database/sql,")
	fmt.Println("mattn/go-sqlite3), and the stack floor the same program also linking urfave/cli, goldmark,")
	fmt.Println("ollama/api and fsnotify. Medians of runs interleaved with the floors'; search is the p50 over")
	fmt.Println("queries.txt of per-query medians. A fresh search with `agent memory watch` running asks it")
	fmt.Println("instead of walking the files (docs/decisions-index.md).")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func dur(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func mustSize(dir string) int64 {
	n, _ := dirSize(dir)
	return n
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return err
	})
	return n, err
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func run(argv ...string) error {
	x := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	x.Stderr = &stderr
	if err := x.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, stderr.String())
	}
	return nil
}

func note(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
