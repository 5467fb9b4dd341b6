package distill_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"agent/core"
	"agent/core/distill"
	"agent/core/memrev"
	"agent/core/ollamatest"
	"agent/index"
)

// The fixture: a week (2026-W47, 16–22 November) of two logs, and today
// the Tuesday after, so W47 is complete and November is not.
var today = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

const log20 = `# 2026-11-20

### 09:12
Booked flights to Lisbon for 4 December, window seat.

### 14:05 · session kitchen
Asked about a recipe for bacalhau; decided to try it on Sunday.
`

const log21 = `# 2026-11-21

### 10:00
Dentist appointment moved to 3 December at 15:00.
`

type env struct {
	home string
	ws   *core.Workspace
	srv  *ollamatest.Server
	opts distill.Options
}

func setup(t *testing.T, logs map[string]string) *env {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	ws, _, err := core.Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	for day, text := range logs {
		if err := os.WriteFile(filepath.Join(home, "logs", day+".md"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	o, err := core.NewOllama(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &env{home: home, ws: ws, srv: srv, opts: distill.Options{
		Home: home, Today: today, Model: core.DistillModel{Model: o, Name: "llama3.2"}, DB: ws.State,
		Now: func() time.Time { return today },
	}}
}

func item(text, source, quote string) map[string]string {
	return map[string]string{"text": text, "source": source, "quote": quote}
}

// reply is a scripted model answer: the JSON of items (and facts).
func reply(t *testing.T, items []map[string]string, facts ...map[string]string) ollamatest.Reply {
	t.Helper()
	v := map[string]any{"items": items}
	if facts != nil {
		v["facts"] = facts
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return ollamatest.Text(string(b))
}

func (e *env) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.home, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (e *env) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(e.home, rel))
	return err == nil
}

var goodWeek = []map[string]string{
	item("Booked flights to Lisbon for 4 December.", "logs/2026-11-20.md:4", "flights to Lisbon for 4 December"),
	item("Dentist moved to 3 December, 15:00.", "logs/2026-11-21.md:4", "Dentist appointment moved"),
	item("Will try bacalhau on Sunday.", "logs/2026-11-20.md:6-7", "decided to try it on Sunday"),
}

func TestWeekGoodOutput(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20, "2026-11-21": log21})
	e.srv.Script(reply(t, goodWeek))
	e.opts.Kind = distill.Week
	res, err := distill.Run(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Period != "2026-W47" || !res[0].Wrote || res[0].Items.Kept != 3 || res[0].Items.DroppedTotal() != 0 {
		t.Fatalf("results: %+v", res)
	}
	want := `# Week 2026-W47 (2026-11-16 to 2026-11-22)

Distilled by agent from 2 daily logs; every line cites the log lines it came from.

- Booked flights to Lisbon for 4 December. (logs/2026-11-20.md:4)
- Will try bacalhau on Sunday. (logs/2026-11-20.md:6-7)
- Dentist moved to 3 December, 15:00. (logs/2026-11-21.md:4)
`
	if got := e.read(t, "digests/2026-W47.md"); got != want {
		t.Errorf("digest:\n%s\nwant:\n%s", got, want)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	var schema map[string]any
	if err := json.Unmarshal(reqs[0].Format, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("format sent: %s (%v)", reqs[0].Format, err)
	}
	if reqs[0].Options["num_ctx"] != float64(distill.DefaultNumCtx) {
		t.Errorf("num_ctx sent: %v", reqs[0].Options["num_ctx"])
	}
	if p := reqs[0].Messages[1].Content; !strings.Contains(p, "=== logs/2026-11-20.md ===\n1| # 2026-11-20\n3| ### 09:12\n4| Booked flights") {
		t.Errorf("prompt does not number the lines:\n%s", p)
	}

	// A second run finds nothing to do and asks the model nothing.
	res, err = distill.Run(context.Background(), e.opts)
	if err != nil || len(res) != 0 || len(e.srv.Requests()) != 1 {
		t.Fatalf("second run: %+v, %v, %d requests", res, err, len(e.srv.Requests()))
	}
	if got := e.read(t, "digests/2026-W47.md"); got != want {
		t.Errorf("second run changed the digest")
	}
}

func TestInvalidCitationsDroppedAndCounted(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20, "2026-11-21": log21})
	items := append([]map[string]string{}, goodWeek...)
	items = append(items,
		item("Went to Mars.", "logs/2026-11-22.md:1", "went to mars"),                // no such log
		item("Flew to Lisbon.", "logs/2026-11-20.md:40-41", "flights to Lisbon for"), // past the end
		item("Booked a hotel.", "logs/2026-11-20.md:4", "booked a hotel in Porto"),   // not in those lines
		item("Something.", "MEMORY.md:1", "User Facts and things"),                   // not a log
		// Starts inside the 7-line file and ends past it, with the quote on
		// line 4: only the end check drops it (4-99 would also be over the
		// 60-line cap, which drops it even without the end check).
		item("Booked flights.", "logs/2026-11-20.md:4-9", "flights to Lisbon for 4 December"),
	)
	e.srv.Script(reply(t, items))
	e.opts.Kind = distill.Week
	// 3 kept, 5 dropped: mostly invalid, nothing written.
	res, err := distill.Run(context.Background(), e.opts)
	if !errors.Is(err, distill.ErrMostlyInvalid) {
		t.Fatalf("err = %v, want ErrMostlyInvalid", err)
	}
	want := map[string]int{distill.DropNoSource: 2, distill.DropOutOfRange: 2, distill.DropQuote: 1}
	if !reflect.DeepEqual(res[0].Items.Dropped, want) || res[0].Items.Kept != 3 || !res[0].Invalid {
		t.Errorf("counts: %+v", res[0].Items)
	}
	if e.exists("digests") {
		t.Errorf("a mostly invalid run wrote something")
	}

	// With fewer bad ones than good, the good are written and the bad counted.
	e.srv.Script(reply(t, items[:5]))
	res, err = distill.Run(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Items.Kept != 3 || res[0].Items.Dropped[distill.DropNoSource] != 1 || !res[0].Wrote {
		t.Errorf("counts: %+v", res[0])
	}
	if d := e.read(t, "digests/2026-W47.md"); strings.Contains(d, "Mars") || strings.Count(d, "\n- ") != 3 {
		t.Errorf("digest:\n%s", d)
	}
}

func TestNotJSONWritesNothing(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20})
	e.srv.Script(ollamatest.Text(`{"items": [{"text": "Booked flights`)) // cut mid-string, as the tiny model does
	e.opts.Kind = distill.Week
	res, err := distill.Run(context.Background(), e.opts)
	if !errors.Is(err, distill.ErrMostlyInvalid) || res[0].Items.Dropped[distill.DropNotJSON] != 1 {
		t.Fatalf("err %v, res %+v", err, res)
	}
	if e.exists("digests") {
		t.Error("wrote a digest from a reply that was not JSON")
	}
}

func TestOllamaDownWritesNothing(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20})
	e.srv.Close()
	_, err := distill.Run(context.Background(), e.opts)
	if !errors.Is(err, core.ErrModelUnavailable) {
		t.Fatalf("err = %v, want ErrModelUnavailable", err)
	}
	if e.exists("digests") {
		t.Error("wrote with Ollama down")
	}
}

// A week longer than one call's context is split into parts that each fit
// num_ctx, and every line of every log is in exactly one part.
func TestLongWeekChunkedWithinNumCtx(t *testing.T) {
	var b strings.Builder
	b.WriteString("# 2026-11-18\n")
	for i := range 300 {
		b.WriteString("Note number " + strings.Repeat("x", i%40) + " about the garden and the kitchen.\n")
	}
	e := setup(t, map[string]string{"2026-11-18": b.String()})
	e.opts.Kind, e.opts.NumCtx, e.opts.NumPredict = distill.Week, 2048, 256
	e.srv.Default(reply(t, []map[string]string{item("A garden note.", "logs/2026-11-18.md:2", "about the garden and the kitchen")}))
	res, err := distill.Run(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	if len(reqs) < 3 || res[0].Chunks != len(reqs) {
		t.Fatalf("%d requests, %d chunks: not split", len(reqs), res[0].Chunks)
	}
	seen := map[string]int{}
	for _, r := range reqs {
		if n := ollamatest.PromptTokens(r); n > 2048-256 {
			t.Errorf("a part of %d tokens (fake's count) does not fit num_ctx 2048 less 256 for the reply", n)
		}
		for _, l := range strings.Split(r.Messages[1].Content, "\n") {
			if i := strings.Index(l, "| "); i > 0 && !strings.Contains(l[:i], " ") {
				seen[l[:i]]++
			}
		}
	}
	for n := 1; n <= 301; n++ {
		if k := seen[strconv.Itoa(n)]; k != 1 {
			t.Fatalf("line %d sent %d times", n, k)
		}
	}
	// The same item from every part is written once.
	if d := e.read(t, "digests/2026-W47.md"); strings.Count(d, "\n- ") != 1 {
		t.Errorf("merged digest:\n%s", d)
	}
}

func TestOverBudgetCutWithNote(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20, "2026-11-21": log21})
	e.srv.Script(reply(t, goodWeek))
	e.opts.Kind, e.opts.WeekTokens = distill.Week, 60
	res, err := distill.Run(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	d := e.read(t, "digests/2026-W47.md")
	if res[0].OverBudget == 0 || !strings.Contains(d, "_Cut: "+strconv.Itoa(res[0].OverBudget)+" more items over this digest's budget of 60 tokens._") {
		t.Errorf("over budget %d, digest:\n%s", res[0].OverBudget, d)
	}
	if len(d) > 60*distill.CharsPerToken+120 {
		t.Errorf("digest of %d bytes ignores its budget", len(d))
	}
}

func TestPeriods(t *testing.T) {
	e := setup(t, map[string]string{"2026-10-30": log20, "2026-11-20": log20, "2026-11-23": log21})
	ps, err := distill.Periods(e.home, today, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range ps {
		keys = append(keys, p.Key)
	}
	// W48 (23–29 Nov) and November are not over; October is. Ordered by
	// their last day: October ends before W44 (26 Oct–1 Nov).
	if want := []string{"2026-10", "2026-W44", "2026-W47"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("periods %v, want %v", keys, want)
	}
	if _, err := distill.Periods(e.home, today, "", "2026-W48"); !errors.Is(err, distill.ErrInvalid) {
		t.Errorf("an unfinished week: %v", err)
	}
	if _, err := distill.Periods(e.home, today, distill.Month, "2026-W47"); !errors.Is(err, distill.ErrInvalid) {
		t.Errorf("a week asked as a month: %v", err)
	}
}

const memoryMD = `# Memory

## User Facts
- Lives in Lisbon (logs/2026-09-02.md:4)
- Allergic to penicillin
`

const logMove = `# 2026-11-05

### 19:00
We moved to Porto last weekend; the new flat is near the river.
Still allergic to penicillin, the doctor said.
`

func TestMonthFacts(t *testing.T) {
	ctx := context.Background()
	e := setup(t, map[string]string{"2026-11-05": logMove})
	if err := os.WriteFile(filepath.Join(e.home, "MEMORY.md"), []byte(memoryMD), 0o600); err != nil {
		t.Fatal(err)
	}
	e.opts.Today = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	e.opts.Period = "2026-11"
	items := []map[string]string{item("Moved to Porto.", "logs/2026-11-05.md:4", "We moved to Porto last weekend")}
	e.srv.Script(reply(t, items,
		map[string]string{"action": "supersede", "section": "User Facts", "text": "Lives in Porto, near the river.", "source": "logs/2026-11-05.md:4", "quote": "moved to Porto last weekend", "replaces": "Lives in Lisbon"},
		map[string]string{"action": "add", "section": "User Facts", "text": "Allergic to penicillin", "source": "logs/2026-11-05.md:5", "quote": "allergic to penicillin"},    // already there
		map[string]string{"action": "remove", "section": "User Facts", "text": "Allergic to penicillin", "source": "logs/2026-11-05.md:5", "quote": "allergic to penicillin"}, // refused
		map[string]string{"action": "add", "section": "Home", "text": "The flat is near the river.", "source": "logs/2026-11-05.md:4", "quote": "the new flat is near the river"},
	))
	res, err := distill.Run(ctx, e.opts)
	if err != nil {
		t.Fatal(err)
	}
	f := res[0].Facts
	if f.Kept != 2 || f.Dropped[distill.DropDuplicate] != 1 || f.Dropped[distill.DropRemoval] != 1 || res[0].Proposed != 2 {
		t.Fatalf("facts: %+v proposed %d", f, res[0].Proposed)
	}
	if got := e.read(t, "MEMORY.md"); got != memoryMD {
		t.Fatalf("proposals were slipped into MEMORY.md:\n%s", got)
	}
	pending, err := distill.Pending(ctx, e.ws.State)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending %+v, %v", pending, err)
	}
	if pending[0].Action != distill.ActionSupersede || pending[0].Replaces != "- Lives in Lisbon (logs/2026-09-02.md:4)" {
		t.Errorf("supersession: %+v", pending[0])
	}

	revs := memrev.NewStore(e.ws.State, e.home, nil)
	if err := distill.Accept(ctx, e.ws.State, revs, e.home, pending[0], e.opts.Today); err != nil {
		t.Fatal(err)
	}
	if err := distill.Reject(ctx, e.ws.State, pending[1].ID, e.opts.Today); err != nil {
		t.Fatal(err)
	}
	want := `# Memory

## User Facts
- Lives in Lisbon (logs/2026-09-02.md:4) _(superseded 2026-12-02: see logs/2026-11-05.md:4)_
- Lives in Porto, near the river. (logs/2026-11-05.md:4)
- Allergic to penicillin
`
	if got := e.read(t, "MEMORY.md"); got != want {
		t.Errorf("MEMORY.md:\n%s\nwant:\n%s", got, want)
	}
	hist, err := revs.History(ctx)
	if err != nil || len(hist) != 2 || hist[0].Author != memrev.Agent || hist[1].Reason != memrev.ReasonInitial {
		t.Fatalf("history %+v, %v", hist, err)
	}
	if p, _ := distill.Pending(ctx, e.ws.State); len(p) != 0 {
		t.Errorf("still pending: %+v", p)
	}

	// Distilled again from scratch: the accepted fact is in MEMORY.md, the
	// rejected one is remembered; neither is proposed again.
	os.Remove(filepath.Join(e.home, "digests", "2026-11.md"))
	e.srv.Script(reply(t, items,
		map[string]string{"action": "add", "section": "User Facts", "text": "Lives in Porto, near the river.", "source": "logs/2026-11-05.md:4", "quote": "moved to Porto"},
		map[string]string{"action": "add", "section": "Home", "text": "The flat is near the river.", "source": "logs/2026-11-05.md:4", "quote": "the new flat is near the river"},
	))
	res, err = distill.Run(ctx, e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := res[0].Facts; f.Kept != 0 || f.Dropped[distill.DropDuplicate] != 1 || f.Dropped[distill.DropRejected] != 1 || res[0].Proposed != 0 {
		t.Errorf("second month run: %+v", res[0])
	}
}

func TestRecentLinesAndOverdue(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20, "2026-11-21": log21})
	due, err := distill.Overdue(e.home, today)
	if err != nil || !reflect.DeepEqual(due, []string{"last week (2026-W47) not distilled yet: run agent memory distill"}) {
		t.Errorf("overdue: %q, %v", due, err)
	}
	if l, err := distill.RecentLines(e.home, 0); l != nil || err != nil {
		t.Errorf("recent lines without a digest: %q, %v", l, err)
	}
	e.srv.Script(reply(t, goodWeek))
	e.opts.Kind = distill.Week
	if _, err := distill.Run(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if due, _ := distill.Overdue(e.home, today); len(due) != 0 {
		t.Errorf("overdue after distilling: %q", due)
	}
	lines, err := distill.RecentLines(e.home, 0)
	want := []string{
		"Week 2026-W47 (2026-11-16 to 2026-11-22), from digests/2026-W47.md:",
		"- Booked flights to Lisbon for 4 December. (logs/2026-11-20.md:4)",
		"- Will try bacalhau on Sunday. (logs/2026-11-20.md:6-7)",
		"- Dentist moved to 3 December, 15:00. (logs/2026-11-21.md:4)",
	}
	if err != nil || !reflect.DeepEqual(lines, want) {
		t.Errorf("recent lines:\n%q\nwant\n%q (%v)", lines, want, err)
	}
	lines, _ = distill.RecentLines(e.home, 50)
	if len(lines) != 3 || lines[2] != "(2 more in digests/2026-W47.md)" {
		t.Errorf("budgeted: %q", lines)
	}
	// A secret an editor put in the digest is repeated in every prompt: as
	// its marker.
	key := "AKIA" + "Z7QW3RTY5UPL2KXM"
	f, err := os.OpenFile(filepath.Join(e.home, "digests", "2026-W47.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("- Backups use " + key + ". (logs/2026-11-21.md:4)\n")
	f.Close()
	lines, _ = distill.RecentLines(e.home, 0)
	if last := lines[len(lines)-1]; last != "- Backups use [secret: aws access key]. (logs/2026-11-21.md:4)" {
		t.Errorf("a digest's secret in the recent lines: %q", last)
	}
}

func TestItemTextIsOneSafeLine(t *testing.T) {
	e := setup(t, map[string]string{"2026-11-20": log20})
	e.srv.Script(reply(t, []map[string]string{
		item("## - * **Booked** flights\nto Lisbon", "logs/2026-11-20.md:4", "Booked flights to Lisbon"),
		item(strings.Repeat("long ", 80), "logs/2026-11-20.md:4", "Booked flights to Lisbon"),
		item("Bacalhau on Sunday.", "logs/2026-11-20.md:7", "decided to try it on Sunday"),
	}))
	e.opts.Kind = distill.Week
	res, err := distill.Run(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Items.Dropped[distill.DropEmpty] != 1 {
		t.Errorf("counts %+v", res[0].Items)
	}
	if d := e.read(t, "digests/2026-W47.md"); !strings.Contains(d, "\n- **Booked** flights to Lisbon (logs/2026-11-20.md:4)\n") {
		t.Errorf("digest:\n%s", d)
	}
}

// A supersession whose old line the user removed meanwhile becomes a plain
// addition: the new fact and its source are kept, nothing else is touched.
func TestSupersedeOfARemovedLine(t *testing.T) {
	ctx := context.Background()
	e := monthEnv(t)
	e.opts.Today, e.opts.Kind = monthToday, distill.Month
	if _, err := distill.Run(ctx, e.opts); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(memoryMD, "- Lives in Lisbon (logs/2026-09-02.md:4)\n", "", 1)
	if err := os.WriteFile(filepath.Join(e.home, "MEMORY.md"), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	pending, _ := distill.Pending(ctx, e.ws.State)
	revs := memrev.NewStore(e.ws.State, e.home, nil)
	if err := distill.Accept(ctx, e.ws.State, revs, e.home, pending[0], monthToday); err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "MEMORY.md"); got != edited+"- Lives in Porto, near the river. (logs/2026-11-05.md:4)\n" {
		t.Errorf("MEMORY.md:\n%s", got)
	}
}

func TestIndexPresence(t *testing.T) {
	ctx := context.Background()
	e := setup(t, map[string]string{"2026-11-05": logMove})
	if err := os.WriteFile(filepath.Join(e.home, "MEMORY.md"), []byte(memoryMD), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, e.home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	present := distill.IndexPresence(ix)
	for fact, want := range map[string]bool{
		"allergic to PENICILLIN":  true,  // in MEMORY.md, case aside
		"Lives in Lisbon":         true,  // a line with its citation
		"moved to Porto":          false, // only in a log: not a fact yet
		"Allergic to peanuts":     false,
		"Lives in Lisbon, Alfama": false,
	} {
		if got, err := present(ctx, fact); err != nil || got != want {
			t.Errorf("present(%q) = %v, %v; want %v", fact, got, err, want)
		}
	}
}

// A model whose tokenizer is denser than the estimate: its first reply says
// the prompt took all of num_ctx (so the server cut it); the period is split
// again in smaller parts and every line still goes in exactly one of them.
func TestPromptOverNumCtxIsSplitAgain(t *testing.T) {
	var b strings.Builder
	b.WriteString("# 2026-11-18\n")
	for range 200 {
		b.WriteString("Note about the garden and the kitchen, and the plumber's visit.\n")
	}
	e := setup(t, map[string]string{"2026-11-18": b.String()})
	e.opts.Kind, e.opts.NumCtx, e.opts.NumPredict = distill.Week, 2048, 256
	good := reply(t, []map[string]string{item("A garden note.", "logs/2026-11-18.md:2", "about the garden and the kitchen")})
	cut := good
	cut.PromptEvalCount = 2048
	e.srv.Script(cut)
	e.srv.Default(good)
	res, err := distill.Run(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	if res[0].Refits != 1 || len(reqs) != 1+res[0].Chunks {
		t.Fatalf("refits %d, chunks %d, %d requests", res[0].Refits, res[0].Chunks, len(reqs))
	}
	first := len(reqs[0].Messages[1].Content)
	seen := map[string]int{}
	for _, r := range reqs[1:] {
		if len(r.Messages[1].Content) > first*2/3 {
			t.Errorf("a part of %d chars after a refit from %d", len(r.Messages[1].Content), first)
		}
		for _, l := range strings.Split(r.Messages[1].Content, "\n") {
			if i := strings.Index(l, "| "); i > 0 && !strings.Contains(l[:i], " ") {
				seen[l[:i]]++
			}
		}
	}
	for n := 1; n <= 201; n++ {
		if seen[strconv.Itoa(n)] != 1 {
			t.Fatalf("line %d sent %d times after the refit", n, seen[strconv.Itoa(n)])
		}
	}
	if !res[0].Wrote {
		t.Errorf("nothing written: %+v", res[0])
	}
}

// A secret in a log edited by hand reaches the model as its marker, and
// the line numbers the model cites are still the file's.
func TestSecretInLogNotSentToModel(t *testing.T) {
	key := "AKIA" + "Z7QW3RTY5UPL2KXM"
	e := setup(t, map[string]string{"2026-11-20": log20 + "\nbackup key " + key + "\n", "2026-11-21": log21})
	e.srv.Script(reply(t, goodWeek))
	e.opts.Kind = distill.Week
	if _, err := distill.Run(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	p := reqs[0].Messages[1].Content
	if strings.Contains(p, key) || !strings.Contains(p, "backup key [secret: aws access key]") || !strings.Contains(p, "4| Booked flights") {
		t.Errorf("prompt:\n%s", p)
	}
}
