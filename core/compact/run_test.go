package compact_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"agent/core/compact"
	"agent/core/distill"
	"agent/core/ollamatest"
	"agent/core/statedb"
	"agent/memory"
)

// ollamaModel is distill.Model over Ollama's own client: one chat request
// per call, the schema sent as format, as the agent's adapter does.
type ollamaModel struct{ client *api.Client }

func (m ollamaModel) Generate(ctx context.Context, req distill.Request) (distill.Reply, error) {
	stream := false
	var out distill.Reply
	err := m.client.Chat(ctx, &api.ChatRequest{
		Model:    "llama3.2",
		Messages: []api.Message{{Role: "system", Content: req.System}, {Role: "user", Content: req.Prompt}},
		Stream:   &stream,
		Format:   req.Format,
		Options:  map[string]any{"num_ctx": req.NumCtx, "num_predict": req.NumPredict},
	}, func(r api.ChatResponse) error {
		out.Content += r.Message.Content
		out.PromptTokens = r.PromptEvalCount
		return nil
	})
	return out, err
}

// fixture is a workspace whose logs hold a session's turns, a real
// state.db with the sessions and summaries schemas, and the fake Ollama.
type fixture struct {
	home  string
	db    *sql.DB
	srv   *ollamatest.Server
	model distill.Model
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	// The sessions table summaries refer to is core's; its migrations are
	// read from where they live, as they are.
	db, err := statedb.Open(ctx, filepath.Join(home, "state.db"), true, []statedb.Set{
		{Component: "core", Files: os.DirFS("..")},
		{Component: "compact", Files: compact.Migrations},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	client, err := api.ClientFromEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{home: home, db: db, srv: srv, model: ollamaModel{client}, now: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)}
}

// session stores a session row and returns its id.
func (f *fixture) session(t *testing.T, name string) int64 {
	t.Helper()
	at := f.now.Format(time.RFC3339)
	res, err := f.db.Exec(`INSERT INTO sessions (name, model, created_at, updated_at) VALUES (?, 'llama3.2', ?, ?)`, name, at, at)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

// logTurn logs an exchange as chat does ("### HH:MM · session NAME") and
// returns its place, as chat stores it with the turn.
func (f *fixture) logTurn(t *testing.T, at time.Time, session, user, reply string) *compact.Span {
	t.Helper()
	res, err := memory.AppendLogEntry(f.home, at, at.Format("15:04")+" · session "+session, memory.TurnEntry(user, "Atlas", reply))
	if err != nil {
		t.Fatal(err)
	}
	return &compact.Span{Path: res.Path, Start: res.StartLine, End: res.EndLine}
}

// cite is the citation of the line of a log holding text.
func (f *fixture) cite(t *testing.T, day, text string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.home, "logs", day+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, text) {
			return fmt.Sprintf("logs/%s.md:%d", day, i+1)
		}
	}
	t.Fatalf("no line of %s holds %q", day, text)
	return ""
}

func items(t *testing.T, its ...[3]string) ollamatest.Reply {
	t.Helper()
	var v []map[string]string
	for _, it := range its {
		v = append(v, map[string]string{"text": it[0], "source": it[1], "quote": it[2]})
	}
	b, err := json.Marshal(map[string]any{"items": v})
	if err != nil {
		t.Fatal(err)
	}
	return ollamatest.Text(string(b))
}

func day(h, m int) time.Time { return time.Date(2026, 11, 22, h, m, 0, 0, time.UTC) }

// The main path: the dropped turns are found in the logs by their user's
// words, in order, under this session's mark and from its first day on;
// the model is shown those turns and nothing else of the logs; only items
// citing them, with a quote from the cited lines, are kept; the summary
// covers through the last dropped turn, and Save then Load gives it back.
func TestRunSummarisesTheDroppedTurnsFromTheLogs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	id := f.session(t, "gym")
	// The day before the session began, an older "gym" (since removed)
	// said the same words: not this session's turn.
	f.logTurn(t, day(9, 0).AddDate(0, 0, -1), "gym", "my gym locker code is 4417, locker 38", "Noted: the old locker, 1234.")
	if _, err := memory.AppendLog(f.home, day(8, 0), "Bought running shoes in the morning."); err != nil {
		t.Fatal(err)
	}
	locker := f.logTurn(t, day(9, 0), "gym", "my gym locker code is 4417, locker 38", "Noted: locker 38, code 4417.")
	f.logTurn(t, day(9, 1), "other", "yes", "Another session's yes, about the dentist on Friday.")
	opens := f.logTurn(t, day(9, 2), "gym", "yes", "Then the gym opens at seven on Sundays.")
	sauna := f.logTurn(t, day(9, 3), "gym", "yes", "And the sauna closes at nine in the evening.")
	f.logTurn(t, day(9, 4), "gym", "what about the pool?", "The pool is closed for repairs until January.")

	// The window dropped the first three of this session's turns, and a
	// fourth chatted with --no-log, which the logs do not hold.
	turns := []compact.Turn{
		{ID: 1, User: "my gym locker code is 4417, locker 38", Reply: "Noted: locker 38, code 4417.", Logged: locker},
		{ID: 3, User: "not logged at all"},
		{ID: 5, User: "yes", Reply: "Then the gym opens at seven on Sundays.", Logged: opens},
		{ID: 7, User: "yes", Reply: "And the sauna closes at nine in the evening.", Logged: sauna},
	}
	const d = "2026-11-22"
	f.srv.Script(items(t,
		[3]string{"Gym locker 38, code 4417.", f.cite(t, d, "code is 4417"), "locker code is 4417"},
		[3]string{"The gym opens at seven on Sundays.", f.cite(t, d, "opens at seven"), "gym opens at seven on Sundays"},
		[3]string{"The sauna closes at nine.", f.cite(t, d, "sauna closes"), "sauna closes at nine"},
		// Lines the model was not shown: another session's turn, a turn
		// the window still carries, a note, the day before.
		[3]string{"Dentist on Friday.", f.cite(t, d, "dentist on Friday"), "about the dentist on Friday"},
		[3]string{"The pool is closed.", f.cite(t, d, "pool is closed"), "closed for repairs until January"},
		[3]string{"Running shoes.", f.cite(t, d, "running shoes"), "Bought running shoes"},
		[3]string{"Old code 1234.", f.cite(t, "2026-11-21", "old locker, 1234"), "the old locker, 1234"},
		// A quote the cited lines do not hold.
		[3]string{"Locker 39.", f.cite(t, d, "code is 4417"), "locker 39 is mine"},
	))
	res, err := compact.Run(ctx, compact.Options{
		Home: f.home, Since: d, Turns: turns,
		Model: f.model, NumCtx: 8192, Now: func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 4 || res.Logged != 3 || res.Parts != 1 {
		t.Errorf("turns %d, logged %d, parts %d; want 4, 3, 1", res.Turns, res.Logged, res.Parts)
	}
	if res.Items.Kept != 3 || res.Items.DroppedTotal() != 5 {
		t.Errorf("items %+v: want 3 kept and 5 dropped", res.Items)
	}
	want := []compact.Line{
		{Text: "Gym locker 38, code 4417.", Source: f.cite(t, d, "code is 4417")},
		{Text: "The gym opens at seven on Sundays.", Source: f.cite(t, d, "opens at seven")},
		{Text: "The sauna closes at nine.", Source: f.cite(t, d, "sauna closes")},
	}
	if !reflect.DeepEqual(res.Summary.Lines, want) {
		t.Errorf("lines:\n%+v\nwant\n%+v", res.Summary.Lines, want)
	}
	if res.Summary.ThroughID != 7 || res.Summary.Turns != 4 || !res.Summary.CreatedAt.Equal(f.now) {
		t.Errorf("summary through %d, %d turns, at %v; want 7, 4, %v", res.Summary.ThroughID, res.Summary.Turns, res.Summary.CreatedAt, f.now)
	}

	// What the model was shown: the three turns, both "yes" ones (matched in
	// order, one section each), and nothing else.
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	shown := reqs[0].Messages[1].Content
	for _, s := range []string{"code is 4417", "opens at seven", "sauna closes"} {
		if !strings.Contains(shown, s) {
			t.Errorf("the model was not shown %q:\n%s", s, shown)
		}
	}
	for _, s := range []string{"dentist", "pool", "running shoes", "1234"} {
		if strings.Contains(shown, s) {
			t.Errorf("the model was shown %q, which is no dropped turn of the session:\n%s", s, shown)
		}
	}
	if reqs[0].Messages[0].Role != "system" || len(reqs[0].Format) == 0 {
		t.Errorf("the call had no system prompt or no format: %+v", reqs[0])
	}

	// Saved, it loads back as it was; the session without one has none.
	if err := compact.Save(ctx, f.db, id, res.Summary); err != nil {
		t.Fatal(err)
	}
	got, ok, err := compact.Load(ctx, f.db, id)
	if err != nil || !ok {
		t.Fatalf("load: ok %v, err %v", ok, err)
	}
	if !reflect.DeepEqual(got.Lines, res.Summary.Lines) || got.ThroughID != 7 || got.Turns != 4 || !got.CreatedAt.Equal(f.now) {
		t.Errorf("loaded %+v, saved %+v", got, res.Summary)
	}
	other := f.session(t, "other")
	if _, ok, err := compact.Load(ctx, f.db, other); ok || err != nil {
		t.Errorf("a session with no summary: ok %v, err %v", ok, err)
	}
}

// Compacting again keeps the summary so far, first, adds the new lines
// after it (a line already there once), and the stored summary is
// replaced, not added to. Over MaxChars the oldest lines go.
func TestRunAddsToThePreviousSummary(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	id := f.session(t, "gym")
	f.logTurn(t, day(9, 0), "gym", "my gym locker code is 4417", "Noted.")
	moved := f.logTurn(t, day(9, 5), "gym", "the gym moved to Rua Augusta 12", "Noted the new address.")
	const d = "2026-11-22"
	first := compact.Line{Text: "Locker code 4417.", Source: f.cite(t, d, "code is 4417")}
	prev := compact.Summary{Lines: []compact.Line{first}, ThroughID: 2, Turns: 1, CreatedAt: f.now.Add(-time.Hour)}
	if err := compact.Save(ctx, f.db, id, prev); err != nil {
		t.Fatal(err)
	}
	movedLine := compact.Line{Text: "The gym is now at Rua Augusta 12.", Source: f.cite(t, d, "Rua Augusta")}
	reply := items(t,
		[3]string{movedLine.Text, movedLine.Source, "moved to Rua Augusta 12"},
		[3]string{movedLine.Text, movedLine.Source, "moved to Rua Augusta 12"},
	)
	f.srv.Script(reply, reply)
	opts := compact.Options{
		Home: f.home, Since: d, Previous: prev,
		Turns: []compact.Turn{{ID: 3, User: "the gym moved to Rua Augusta 12", Logged: moved}},
		Model: f.model, NumCtx: 8192, Now: func() time.Time { return f.now },
	}
	res, err := compact.Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []compact.Line{first, movedLine}; !reflect.DeepEqual(res.Summary.Lines, want) {
		t.Errorf("lines %+v, want %+v", res.Summary.Lines, want)
	}
	if res.Summary.ThroughID != 3 || res.Summary.Turns != 2 || res.Trimmed != 0 {
		t.Errorf("through %d, %d turns, %d trimmed; want 3, 2, 0", res.Summary.ThroughID, res.Summary.Turns, res.Trimmed)
	}
	if err := compact.Save(ctx, f.db, id, res.Summary); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := f.db.QueryRow(`SELECT count(*) FROM session_summaries WHERE session_id = ?`, id).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("%d stored summaries for the session (err %v), want 1", rows, err)
	}
	if got, _, _ := compact.Load(ctx, f.db, id); !reflect.DeepEqual(got.Lines, res.Summary.Lines) || got.ThroughID != 3 {
		t.Errorf("loaded %+v, want the second summary", got)
	}

	// Room for the newest line only: the oldest goes, and is counted.
	opts.MaxChars = len(movedLine.String()) + 1
	res, err = compact.Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Summary.Lines, []compact.Line{movedLine}) || res.Trimmed != 1 {
		t.Errorf("capped: lines %+v, %d trimmed; want the newest line, 1 trimmed", res.Summary.Lines, res.Trimmed)
	}
}

// What Run refuses: no dropped turn, none of them logged (no model call
// for either), a reply with no valid item, a num_ctx with no room for the
// turns, and a model that is down. It never writes: the caller saves.
func TestRunRefuses(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.session(t, "gym")
	locker := f.logTurn(t, day(9, 0), "gym", "my gym locker code is 4417", "Noted.")
	opts := compact.Options{
		Home: f.home, Since: "2026-11-22",
		Turns: []compact.Turn{{ID: 1, User: "my gym locker code is 4417", Logged: locker}},
		Model: f.model, NumCtx: 8192,
	}

	none := opts
	none.Turns = nil
	if _, err := compact.Run(ctx, none); !errors.Is(err, compact.ErrNothing) {
		t.Errorf("no turns: err = %v, want ErrNothing", err)
	}
	unlogged := opts
	unlogged.Turns = []compact.Turn{{ID: 1, User: "chatted with --no-log"}}
	if res, err := compact.Run(ctx, unlogged); !errors.Is(err, compact.ErrNothing) || res.Logged != 0 {
		t.Errorf("no logged turn: logged %d, err = %v, want ErrNothing", res.Logged, err)
	}
	elsewhere := opts
	elsewhere.Turns = []compact.Turn{{ID: 1, User: "my gym locker code is 4417", Logged: &compact.Span{Path: "logs/2026-11-21.md", Start: 3, End: 5}}}
	if _, err := compact.Run(ctx, elsewhere); !errors.Is(err, compact.ErrNothing) {
		t.Errorf("a place in no log: err = %v, want ErrNothing", err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d model calls with nothing to compact", n)
	}

	f.srv.Script(items(t, [3]string{"Locker 39.", "logs/2026-11-22.md:5", "locker 39 is mine"}))
	if _, err := compact.Run(ctx, opts); !errors.Is(err, compact.ErrInvalid) {
		t.Errorf("no valid item: err = %v, want ErrInvalid", err)
	}
	small := opts
	small.NumCtx = 512
	if _, err := compact.Run(ctx, small); !errors.Is(err, compact.ErrInvalid) {
		t.Errorf("num_ctx 512: err = %v, want ErrInvalid", err)
	}

	f.srv.Close()
	if _, err := compact.Run(ctx, opts); err == nil {
		t.Error("the model is down, yet no error")
	}
	var rows int
	if err := f.db.QueryRow(`SELECT count(*) FROM session_summaries`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d summaries stored (err %v), want none", rows, err)
	}
}

// A turn is found where it was logged, as stored with it: under a heading
// the user has since edited (no longer "· session gym"), and not at all
// when it was not logged, even though a logged turn of the session said
// the same words ("yes"); a stored place whose lines no longer hold the
// turn is not used.
func TestRunFindsTurnsWhereTheyWereLogged(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.session(t, "gym")
	logged := func(at time.Time, user, reply string) *compact.Span {
		t.Helper()
		res, err := memory.AppendLogEntry(f.home, at, at.Format("15:04")+" · session gym", memory.TurnEntry(user, "Atlas", reply))
		if err != nil {
			t.Fatal(err)
		}
		return &compact.Span{Path: res.Path, Start: res.StartLine, End: res.EndLine}
	}
	first := logged(day(9, 0), "my gym locker code is 4417, locker 38", "Noted: locker 38, code 4417.")
	yes := logged(day(9, 1), "yes", "Then the gym opens at seven on Sundays.")
	moved := logged(day(9, 2), "and the sauna?", "The sauna closes at nine.")
	// The user retitles the first turn and rewrites the third.
	p := filepath.Join(f.home, "logs", "2026-11-22.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "### 09:00 · session gym", "### 09:00 the locker", 1)
	text = strings.Replace(text, "**User:** and the sauna?", "(rewritten)", 1)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	turns := []compact.Turn{
		{ID: 1, User: "my gym locker code is 4417, locker 38", Logged: first},
		{ID: 3, User: "yes", Logged: &compact.Span{}}, // chatted with --no-log
		{ID: 5, User: "yes", Logged: yes},
		{ID: 7, User: "and the sauna?", Logged: moved},
	}
	const d = "2026-11-22"
	f.srv.Script(items(t, [3]string{"Gym locker 38, code 4417.", f.cite(t, d, "code is 4417"), "locker code is 4417"}))
	res, err := compact.Run(ctx, compact.Options{
		Home: f.home, Since: d, Turns: turns,
		Model: f.model, NumCtx: 8192, Now: func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 4 || res.Logged != 2 {
		t.Errorf("turns %d, logged %d; want 4, 2 (the retitled turn and the logged yes)", res.Turns, res.Logged)
	}
	shown := f.srv.Requests()[0].Messages[1].Content
	for _, s := range []string{"code is 4417", "opens at seven"} {
		if !strings.Contains(shown, s) {
			t.Errorf("the model was not shown %q:\n%s", s, shown)
		}
	}
	if strings.Contains(shown, "sauna closes") {
		t.Errorf("the model was shown the rewritten turn's lines:\n%s", shown)
	}
}
