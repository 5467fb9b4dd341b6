package distill_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"agent/core"
	"agent/core/distill"
	"agent/core/memrev"
)

// TestMain doubles as the crash child: with DISTILL_CRASH_AT set, the test
// binary distills (or accepts the pending proposals) in the workspace
// DISTILL_HOME and kills itself with SIGKILL at that stage.
func TestMain(m *testing.M) {
	if at := os.Getenv("DISTILL_CRASH_AT"); at != "" {
		if err := crashChild(at, os.Getenv("DISTILL_HOME"), os.Getenv("DISTILL_DO")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var monthToday = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

func crashChild(at, home, do string) error {
	ctx := context.Background()
	kill := func(s string) {
		if s == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	ws, err := core.Open(ctx, home)
	if err != nil {
		return err
	}
	defer ws.Close()
	if do == "accept" {
		pending, err := distill.Pending(ctx, ws.State)
		if err != nil {
			return err
		}
		revs := memrev.NewStore(ws.State, home, nil)
		for _, p := range pending {
			if err := distill.AcceptAt(ctx, ws.State, revs, home, p, monthToday, kill); err != nil {
				return err
			}
		}
		return nil
	}
	o, err := core.NewOllama(nil)
	if err != nil {
		return err
	}
	_, err = distill.Run(ctx, distill.WithStage(distill.Options{Home: home, Today: monthToday, Kind: distill.Month,
		Model: core.DistillModel{Model: o, Name: "llama3.2"}, DB: ws.State}, kill))
	return err
}

// snapshot is what a run leaves: every visible file under digests/,
// MEMORY.md, and the proposals with their status.
func snapshot(t *testing.T, e *env) string {
	t.Helper()
	var b strings.Builder
	ents, _ := os.ReadDir(filepath.Join(e.home, "digests"))
	for _, en := range ents {
		if strings.HasPrefix(en.Name(), ".") {
			continue // a temp file renameio left: hidden, never indexed
		}
		fmt.Fprintf(&b, "== digests/%s\n%s", en.Name(), e.read(t, "digests/"+en.Name()))
	}
	fmt.Fprintf(&b, "== MEMORY.md\n%s", e.read(t, "MEMORY.md"))
	rows, err := e.ws.State.Query(`SELECT action, text, source, status FROM distill_proposals ORDER BY fact_key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var props []string
	for rows.Next() {
		var a, x, s, st string
		rows.Scan(&a, &x, &s, &st)
		props = append(props, strings.Join([]string{a, x, s, st}, "|"))
	}
	sort.Strings(props)
	fmt.Fprintf(&b, "== proposals\n%s\n", strings.Join(props, "\n"))
	return b.String()
}

func (e *env) child(t *testing.T, at, do string) (killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DISTILL_CRASH_AT="+at, "DISTILL_HOME="+e.home, "DISTILL_DO="+do)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	if err != nil {
		t.Fatalf("child (%s, %s): %v\n%s", at, do, err, out)
	}
	return false
}

func monthEnv(t *testing.T) *env {
	e := setup(t, map[string]string{"2026-11-05": logMove})
	if err := os.WriteFile(filepath.Join(e.home, "MEMORY.md"), []byte(memoryMD), 0o600); err != nil {
		t.Fatal(err)
	}
	e.srv.Default(reply(t, []map[string]string{item("Moved to Porto.", "logs/2026-11-05.md:4", "We moved to Porto last weekend")},
		map[string]string{"action": "supersede", "section": "User Facts", "text": "Lives in Porto, near the river.", "source": "logs/2026-11-05.md:4", "quote": "moved to Porto last weekend", "replaces": "Lives in Lisbon"},
		map[string]string{"action": "add", "section": "Home", "text": "The flat is near the river.", "source": "logs/2026-11-05.md:4", "quote": "the new flat is near the river"},
	))
	return e
}

// A run killed with SIGKILL at each point between its writes leaves either
// the state before the run or a state the next run completes into exactly
// what an uninterrupted run gives; a further run changes nothing.
func TestCrashAtEachWrite(t *testing.T) {
	ref := monthEnv(t)
	before := snapshot(t, ref)
	ref.child(t, "never", "run")
	afterRun := snapshot(t, ref)
	ref.child(t, "never", "accept")
	afterAccept := snapshot(t, ref)
	if afterRun == before || afterAccept == afterRun || !strings.Contains(afterAccept, "superseded 2026-12-02") {
		t.Fatalf("the reference runs did nothing:\n%s", afterAccept)
	}
	for _, c := range []struct{ at, do string }{
		{"proposals", "run"}, {"digest", "run"}, {"written", "run"},
		{"accept", "accept"}, {"accepted", "accept"},
	} {
		t.Run(c.at, func(t *testing.T) {
			e := monthEnv(t)
			if c.do == "accept" {
				e.child(t, "never", "run")
			}
			start := snapshot(t, e)
			if !e.child(t, c.at, c.do) {
				t.Fatalf("the child was not killed at %s", c.at)
			}
			got := snapshot(t, e)
			end := map[string]string{"run": afterRun, "accept": afterAccept}[c.do]
			if got != start && got != end && !halfway(got, start, end) {
				t.Fatalf("killed at %s, left:\n%s", c.at, got)
			}
			e.child(t, "never", c.do)
			if got := snapshot(t, e); got != end {
				t.Fatalf("after a rerun:\n%s\nwant:\n%s", got, end)
			}
			e.child(t, "never", c.do)
			if got := snapshot(t, e); got != end {
				t.Fatalf("a further run changed:\n%s", got)
			}
		})
	}
}

// halfway accepts the one in-between state a kill may leave: proposals
// stored but no digest yet (the next run writes the digest and stores
// nothing twice), or the fact written but not yet marked accepted (the next
// run finds it present and only marks it).
func halfway(got, start, end string) bool {
	return strings.Contains(got, "|pending") && (strings.Contains(got, "superseded") || !strings.Contains(got, "== digests/"))
}
