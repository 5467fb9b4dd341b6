// Package compact summarises the part of a chat session its context window
// has dropped. The model reads the session's logged turns (the daily logs,
// numbered as the index numbers them) and answers with short items, each
// citing the lines it came from; the citations are checked exactly as
// distill checks a digest's (distill.Checker), so an uncited or invalid
// item is dropped. The summary is stored in state.db, one a session, and
// core places it at the start of the window.
package compact

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"agent/core/distill"
	"agent/memory"
)

// Migrations holds this package's state.db schema (session_summaries).
//
//go:embed migrations/*.sql
var Migrations embed.FS

// ErrNothing is a compaction with nothing to do: the window still carries
// every turn not yet summarised, or none of them was logged.
var ErrNothing = errors.New("nothing to compact")

// ErrInvalid is a compaction whose model output held no valid item, or a
// num_ctx too small for any turn: nothing is stored.
var ErrInvalid = errors.New("compaction failed")

// Turn is one exchange the window has dropped, as the session stores it.
type Turn struct {
	ID    int64 // the user's message
	User  string
	Reply string
	// Logged is where the turn was logged, as stored with it: its heading's
	// line to its last, in a log (nil or Path "": not logged). Turns
	// stored before the place was kept had it filled once, at the open
	// (core's migration 0009_log_places.go).
	Logged *Span
}

// Span is a turn's place in a daily log: lines Start (its heading) to End.
type Span struct {
	Path       string
	Start, End int
}

// Line is one item of a summary: a sentence and the log lines it cites.
type Line struct {
	Text   string `json:"text"`
	Source string `json:"source"`
}

// Summary is a session's stored summary.
type Summary struct {
	Lines []Line `json:"lines"`
	// ThroughID is the last message it covers; Turns how many exchanges.
	ThroughID int64     `json:"through_id"`
	Turns     int       `json:"turns"`
	CreatedAt time.Time `json:"created_at"`
}

// MarshalJSON writes created_at as every command does: RFC 3339 in UTC, to
// the second.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return json.Marshal(struct {
		plain
		CreatedAt string `json:"created_at"`
	}{plain(s), s.CreatedAt.UTC().Format(time.RFC3339)})
}

// Options of one compaction.
type Options struct {
	Home string
	// Since is the first day (YYYY-MM-DD) a turn may be logged on: only
	// the logs from then on are read.
	Since string
	// Turns are the dropped exchanges not yet summarised, oldest first.
	Turns []Turn
	// Previous is the summary so far: its lines are kept, the new ones follow.
	Previous Summary
	Model    distill.Model
	NumCtx   int
	// NumPredict is the room kept for each reply (0: distill's default, at
	// most a third of num_ctx).
	NumPredict    int
	CharsPerToken float64
	// MaxChars caps the summary: the oldest lines go first beyond it.
	MaxChars int
	Progress func(string)
	Now      func() time.Time
}

// Result says what a compaction did.
type Result struct {
	Turns   int            `json:"turns"`  // dropped exchanges given
	Logged  int            `json:"logged"` // of them, found in the logs (citable)
	Parts   int            `json:"parts"`  // model calls
	Items   distill.Counts `json:"items"`  // the model's items kept and dropped
	Trimmed int            `json:"trimmed"`
	Summary Summary        `json:"summary"`
}

const systemPrompt = `You summarise the earlier part of a conversation between a person and their assistant, from its logged turns, so that the assistant keeps what matters after those turns leave its context. You answer only with JSON that fits the given schema.
Each item is one short sentence worth remembering: a fact about the person, a decision, a plan, a date, a number, a name, a question still open.
Each item cites its source as PATH:START-END using the path and the line numbers shown before each line ("14| text" is line 14), and quotes a few words copied exactly from those lines.
Never invent anything that is not in the turns. Leave out small talk.`

func prompt(part, parts int, chunk string) string {
	return fmt.Sprintf("Logged turns of the conversation, part %d of %d:\n\n%s", part, parts, chunk)
}

// Run asks the model for a summary of o.Turns and returns it merged after
// o.Previous. It writes nothing: the caller stores the summary (Save) once
// every model call has succeeded.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.NumPredict <= 0 {
		o.NumPredict = min(distill.DefaultNumPredict, o.NumCtx/3)
	}
	if o.CharsPerToken <= 0 {
		o.CharsPerToken = distill.CharsPerToken
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	res := Result{Turns: len(o.Turns)}
	if len(o.Turns) == 0 {
		return res, ErrNothing
	}
	srcs, logged, err := loggedTurns(o.Home, o.Since, o.Turns)
	if err != nil {
		return res, err
	}
	res.Logged = logged
	if logged == 0 {
		return res, fmt.Errorf("%w: none of the %d turns the window dropped is in the logs (turns chatted with --no-log or not finished are not)", ErrNothing, len(o.Turns))
	}
	planned := o.NumCtx - o.NumPredict
	fixed := int(float64(len(systemPrompt)+len(prompt(1, 1, "")))/o.CharsPerToken) + 64
	room := int(float64(planned-fixed) * o.CharsPerToken)
	if room < 400 {
		return res, fmt.Errorf("%w: num_ctx %d leaves no room for the turns (the prompt needs %d tokens and the reply %d)", ErrInvalid, o.NumCtx, fixed, o.NumPredict)
	}
	chunks := distill.ChunkSources(srcs, room)
	chk := distill.NewChecker(srcs)
	res.Parts = len(chunks)
	var items []distill.Item
	for i, c := range chunks {
		if len(chunks) > 1 {
			o.Progress(fmt.Sprintf("compacting: part %d of %d (%d chars)", i+1, len(chunks), len(c.Text)))
		}
		rep, err := o.Model.Generate(ctx, distill.Request{
			System: systemPrompt, Prompt: prompt(i+1, len(chunks), c.Text),
			Format: distill.Schema(distill.Week), NumCtx: o.NumCtx, NumPredict: o.NumPredict,
		})
		if err != nil {
			return res, err
		}
		items = append(items, chk.Items(rep.Content, &res.Items)...)
	}
	if len(items) == 0 {
		return res, fmt.Errorf("%w: the model's summary held no item with a valid citation (%d dropped)", ErrInvalid, res.Items.DroppedTotal())
	}
	lines := append([]Line{}, o.Previous.Lines...)
	seen := map[Line]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	for _, it := range items {
		l := Line{Text: it.Text, Source: it.Cite}
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	lines, res.Trimmed = trim(lines, o.MaxChars)
	res.Summary = Summary{Lines: lines, ThroughID: o.Turns[len(o.Turns)-1].ID, Turns: o.Previous.Turns + len(o.Turns), CreatedAt: o.Now()}
	return res, nil
}

// trim keeps the newest lines whose rendering fits max characters (0: all).
func trim(lines []Line, max int) ([]Line, int) {
	if max <= 0 {
		return lines, 0
	}
	total := 0
	for i := len(lines) - 1; i >= 0; i-- {
		total += utf8.RuneCountInString(lines[i].String()) + 1
		if total > max {
			return lines[i+1:], i + 1
		}
	}
	return lines, 0
}

func (l Line) String() string { return "- " + l.Text + " (" + l.Source + ")" }

// Text renders a summary's lines, one a line.
func (s Summary) Text() string {
	var b strings.Builder
	for _, l := range s.Lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// loggedTurns keeps, of the logs, the lines of the given turns: where each
// was logged, as stored with it (Turn.Logged). Every other line is
// blanked: blank lines are neither shown to the model nor citable, so an
// item can only cite the dropped turns. A stored place whose lines no
// longer hold the turn (the log edited since) is not used.
func loggedTurns(home, since string, turns []Turn) ([]distill.Source, int, error) {
	logs, err := distill.Logs(home, func(day string) bool { return day >= since })
	if err != nil {
		return nil, 0, err
	}
	keep := make([][]bool, len(logs))
	byPath := make(map[string]int, len(logs))
	for i, s := range logs {
		keep[i] = make([]bool, len(s.Lines))
		byPath[s.Path] = i
	}
	logged := 0
	for _, t := range turns {
		if t.Logged == nil {
			continue
		}
		src, ok := byPath[t.Logged.Path]
		// Lines are 1-based; the heading (Start) is not kept.
		if !ok || t.Logged.Path == "" || t.Logged.Start < 1 || t.Logged.End > len(logs[src].Lines) || t.Logged.End <= t.Logged.Start {
			continue
		}
		sec := section{src, t.Logged.Start, t.Logged.End}
		if !strings.Contains(strings.Join(logs[src].Lines[sec.start:sec.end], "\n"), memory.TurnProbe(t.User)) {
			continue
		}
		sec.keep(keep)
		logged++
	}
	out := make([]distill.Source, len(logs))
	for i, s := range logs {
		lines := make([]string, len(s.Lines))
		for k, l := range s.Lines {
			if keep[i][k] {
				lines[k] = l
			}
		}
		out[i] = distill.Source{Path: s.Path, Day: s.Day, Lines: lines}
	}
	return out, logged, nil
}

// section is lines start..end-1 of logs[src].
type section struct{ src, start, end int }

func (s section) keep(keep [][]bool) {
	for k := s.start; k < s.end; k++ {
		keep[s.src][k] = true
	}
}

const (
	sqlSummaryGet = `SELECT items, through_id, turns, created_at FROM session_summaries WHERE session_id = ?`
	sqlSummarySet = `INSERT INTO session_summaries (session_id, items, through_id, turns, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(session_id) DO UPDATE SET items = excluded.items, through_id = excluded.through_id, turns = excluded.turns, created_at = excluded.created_at`
)

// Load returns a session's summary; ok is false when it has none.
func Load(ctx context.Context, db *sql.DB, sessionID int64) (s Summary, ok bool, err error) {
	var items, created string
	err = db.QueryRowContext(ctx, sqlSummaryGet, sessionID).Scan(&items, &s.ThroughID, &s.Turns, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Summary{}, false, nil
	}
	if err != nil {
		return Summary{}, false, fmt.Errorf("read the session's summary: %w", err)
	}
	if err := json.Unmarshal([]byte(items), &s.Lines); err != nil {
		return Summary{}, false, fmt.Errorf("read the session's summary: %w", err)
	}
	s.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return s, true, nil
}

// Save stores a session's summary, replacing the one before.
func Save(ctx context.Context, db *sql.DB, sessionID int64, s Summary) error {
	items, err := json.Marshal(s.Lines)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, sqlSummarySet, sessionID, string(items), s.ThroughID, s.Turns, s.CreatedAt.UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("store the session's summary: %w", err)
	}
	return nil
}
