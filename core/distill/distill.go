package distill

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unicode/utf8"
)

// Model is what distill needs from a language model: one reply, the JSON
// that fits req.Format. core's Ollama adapter provides it.
type Model interface {
	Generate(ctx context.Context, req Request) (Reply, error)
}

// Reply is the model's answer: its content, and how many prompt tokens the
// model evaluated (0 if it does not say), which tells a prompt that did not
// fit num_ctx.
type Reply struct {
	Content      string
	PromptTokens int
}

// Request is one call to the model.
type Request struct {
	System     string
	Prompt     string
	Format     json.RawMessage
	NumCtx     int
	NumPredict int
}

// Defaults of the model call. NumPredict is the room kept for the reply
// inside num_ctx: a digest of one chunk is a few hundred tokens of JSON.
const (
	DefaultNumCtx     = 8192
	DefaultNumPredict = 1024
)

// ErrMostlyInvalid is a period whose model output was mostly dropped by the
// checks: nothing of it is written.
var ErrMostlyInvalid = errors.New("model output mostly invalid")

// ErrInvalid is a bad option (a period that is not over, a context too
// small to hold any log).
var ErrInvalid = errors.New("invalid")

// Options of a run.
type Options struct {
	Home   string
	Today  time.Time // the user's today: only whole periods before it are distilled
	Kind   string    // Week, Month, or "" for both
	Period string    // one period ("2026-W47", "2026-11"); "" means every complete one not yet distilled
	DryRun bool      // call the model and check its output, write nothing

	NumCtx      int // tokens per call, prompt and reply (DefaultNumCtx)
	NumPredict  int // tokens kept for the reply (DefaultNumPredict)
	WeekTokens  int // budget of a weekly digest (DefaultWeekTokens)
	MonthTokens int // budget of a monthly digest (DefaultMonthTokens)
	// CharsPerToken is the first estimate used to size the parts (0:
	// CharsPerToken); chat's calibrated ratio for the model is a good one.
	CharsPerToken float64

	Model Model
	// DB is state.db: the month's proposals are stored there. Nil with
	// DryRun only.
	DB *sql.DB
	// Present reports whether a fact is already in MEMORY.md; cmd wires the
	// index (IndexPresence). Nil: MEMORY.md's lines are compared directly.
	Present func(ctx context.Context, text string) (bool, error)
	// Progress, if set, hears what is going on (for stderr).
	Progress func(string)
	Now      func() time.Time

	stage stage // nil but in the crash tests (export_test.go)
}

// Result is what happened to one period.
type Result struct {
	Period     string `json:"period"`
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	Logs       int    `json:"logs"`
	Chunks     int    `json:"chunks"`      // model calls
	CutLines   int    `json:"cut_lines"`   // log lines shortened to fit a chunk
	Refits     int    `json:"refits"`      // times the parts were made smaller to fit num_ctx
	Items      Counts `json:"items"`       // digest items kept and dropped
	Facts      Counts `json:"facts"`       // fact proposals kept and dropped (month)
	Written    int    `json:"written"`     // items in the digest
	OverBudget int    `json:"over_budget"` // items cut by the budget
	Proposed   int    `json:"proposed"`    // new proposals stored
	Digest     string `json:"-"`           // the digest's text, for --dry-run
	Wrote      bool   `json:"wrote"`
	Invalid    bool   `json:"invalid"`        // mostly invalid: nothing written
	Note       string `json:"note,omitempty"` // why nothing was written
}

func (o *Options) defaults() {
	if o.NumCtx <= 0 {
		o.NumCtx = DefaultNumCtx
	}
	if o.NumPredict <= 0 {
		o.NumPredict = DefaultNumPredict
	}
	if o.WeekTokens <= 0 {
		o.WeekTokens = DefaultWeekTokens
	}
	if o.MonthTokens <= 0 {
		o.MonthTokens = DefaultMonthTokens
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CharsPerToken <= 0 {
		o.CharsPerToken = CharsPerToken
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
}

// Periods lists what a run would distill: the one named, or every complete
// period (of kind, or both) that has logs and no digest, oldest first.
func Periods(home string, today time.Time, kind, key string) ([]Period, error) {
	todayDay := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	if key != "" {
		p, err := ParsePeriod(key)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if kind != "" && kind != p.Kind {
			return nil, fmt.Errorf("%w: %s is a %s, not a %s", ErrInvalid, key, p.Kind, kind)
		}
		if p.End.After(todayDay) {
			return nil, fmt.Errorf("%w: %s is not over yet (its last day is %s)", ErrInvalid, key, p.Last())
		}
		return []Period{p}, nil
	}
	kinds := []string{Week, Month}
	if kind != "" {
		kinds = []string{kind}
	}
	days, err := logDays(home)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Period
	for _, d := range days {
		day, _ := time.Parse(time.DateOnly, d)
		for _, k := range kinds {
			p := PeriodOf(k, day)
			if seen[p.Key] || p.End.After(todayDay) {
				continue
			}
			seen[p.Key] = true
			done, err := Distilled(home, p)
			if err != nil {
				return nil, err
			}
			if !done {
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].End.Equal(out[j].End) {
			return out[i].End.Before(out[j].End)
		}
		return out[i].Kind == Week && out[j].Kind == Month
	})
	return out, nil
}

// Run distills each period in turn. A period is whole or nothing: its
// model calls all finish and its output is checked before its proposals
// and then its digest are written. A model failure stops the run (error
// wrapping the model's); a period whose output is mostly invalid writes
// nothing, the run goes on, and the error at the end is ErrMostlyInvalid.
func Run(ctx context.Context, opts Options) ([]Result, error) {
	opts.defaults()
	periods, err := Periods(opts.Home, opts.Today, opts.Kind, opts.Period)
	if err != nil {
		return nil, err
	}
	var out []Result
	invalid := 0
	for _, p := range periods {
		res, err := runPeriod(ctx, &opts, p)
		if errors.Is(err, ErrMostlyInvalid) {
			invalid++
			out = append(out, res)
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	if invalid > 0 {
		return out, fmt.Errorf("%w: %d of %d periods wrote nothing", ErrMostlyInvalid, invalid, len(periods))
	}
	return out, nil
}

func runPeriod(ctx context.Context, o *Options, p Period) (Result, error) {
	res := Result{Period: p.Key, Kind: p.Kind, Path: p.Path()}
	if o.Period != "" {
		if done, err := Distilled(o.Home, p); err != nil {
			return res, err
		} else if done {
			res.Note = "already distilled (delete " + p.Path() + " to distill it again)"
			return res, nil
		}
	}
	srcs, err := Sources(o.Home, p)
	if err != nil {
		return res, err
	}
	res.Logs = len(srcs)
	if len(srcs) == 0 {
		res.Note = "no logs in this period"
		return res, nil
	}
	mem, err := readMemory(o.Home)
	if err != nil {
		return res, err
	}
	memText := ""
	if p.Kind == Month {
		memText = mem.text
	}
	// The parts are sized by an estimate of characters a token; a reply
	// whose prompt_eval_count shows the prompt did not fit what was planned
	// (the server cuts the front of a longer one, silently) makes the whole
	// period run again in smaller parts, with the ratio measured.
	ratio := o.CharsPerToken
	var items []Item
	var facts []Proposal
	for {
		var cut bool
		var measured float64
		items, facts, measured, cut, err = o.distillParts(ctx, p, srcs, mem, memText, ratio, &res)
		if err != nil || !cut {
			break
		}
		res.Refits++
		ratio = min(measured*0.9, ratio/2)
		if ratio < minCharsPerToken || res.Refits > maxRefits {
			return res, fmt.Errorf("%w: the logs do not fit num_ctx %d even in parts of %.2f characters a token: raise --num-ctx", ErrInvalid, o.NumCtx, ratio)
		}
		o.Progress(fmt.Sprintf("%s: a part did not fit num_ctx %d (the model counts %.2f characters a token): splitting again", p.Key, o.NumCtx, measured))
	}
	if err != nil {
		return res, err
	}
	all := res.Items
	all.Kept += res.Facts.Kept
	for k, v := range res.Facts.Dropped {
		all.Dropped = addCount(all.Dropped, k, v)
	}
	if all.mostlyInvalid() {
		res.Note = fmt.Sprintf("model output mostly invalid (%d kept, %d dropped): nothing written", all.Kept, all.DroppedTotal())
		res.Invalid = true
		return res, ErrMostlyInvalid
	}
	items = mergeItems(items)
	budget := o.WeekTokens
	if p.Kind == Month {
		budget = o.MonthTokens
	}
	res.Digest, res.OverBudget = render(p, srcs, items, budget)
	res.Written = len(items) - res.OverBudget
	if o.DryRun {
		res.Note = "dry run: nothing written"
		res.Proposed = len(facts)
		return res, nil
	}
	// Proposals first, then the digest: a run killed in between leaves no
	// digest, so the period is distilled again, and the proposals, keyed by
	// their text, are not stored twice.
	o.stage.at("proposals")
	if len(facts) > 0 {
		n, err := storeProposals(ctx, o.DB, p, facts, o.Now())
		if err != nil {
			return res, err
		}
		res.Proposed = n
	}
	o.stage.at("digest")
	if err := writeDigest(o.Home, p, res.Digest); err != nil {
		return res, err
	}
	o.stage.at("written")
	res.Wrote = true
	return res, nil
}

// Refitting: at most maxRefits runs again, never below minCharsPerToken.
const (
	maxRefits        = 4
	minCharsPerToken = 0.5
)

// distillParts splits the logs at ratio characters a token, asks the model
// for each part and checks its answers. cut reports a part whose prompt
// took more tokens than planned; measured is then that part's real ratio.
func (o *Options) distillParts(ctx context.Context, p Period, srcs []Source, mem memoryFile, memText string, ratio float64, res *Result) (items []Item, facts []Proposal, measured float64, cut bool, err error) {
	res.Items, res.Facts, res.CutLines = Counts{}, Counts{}, 0
	// Room for the logs: num_ctx less the reply and the fixed parts of the
	// prompt (system, framing, MEMORY.md for a month).
	planned := o.NumCtx - o.NumPredict
	fixed := int(float64(len(systemPrompt)+len(prompt(p, "", 1, 1, memText)))/ratio) + 64
	room := int(float64(planned-fixed) * ratio)
	if room < 400 {
		return nil, nil, 0, false, fmt.Errorf("%w: num_ctx %d leaves no room for the logs (the prompt needs %d tokens and the reply %d): raise --num-ctx",
			ErrInvalid, o.NumCtx, fixed, o.NumPredict)
	}
	chunks := ChunkSources(srcs, room)
	res.Chunks = len(chunks)
	chk := NewChecker(srcs)
	for i, c := range chunks {
		res.CutLines += c.Cut
		if len(chunks) > 1 {
			o.Progress(fmt.Sprintf("%s: part %d of %d (%d chars)", p.Key, i+1, len(chunks), len(c.Text)))
		}
		req := Request{
			System: systemPrompt, Prompt: prompt(p, c.Text, i+1, len(chunks), memText),
			Format: Schema(p.Kind), NumCtx: o.NumCtx, NumPredict: o.NumPredict,
		}
		rep, err := o.Model.Generate(ctx, req)
		if err != nil {
			return nil, nil, 0, false, err
		}
		if rep.PromptTokens >= planned {
			return nil, nil, float64(utf8.RuneCountInString(req.System+req.Prompt)) / float64(rep.PromptTokens), true, nil
		}
		r, err := parseReply(rep.Content)
		if err != nil {
			res.Items.drop(DropNotJSON)
			continue
		}
		items = append(items, chk.items(r.Items, &res.Items)...)
		if p.Kind == Month {
			fs, err := o.checkFacts(ctx, p, chk, mem, r.Facts, &res.Facts)
			if err != nil {
				return nil, nil, 0, false, err
			}
			facts = append(facts, fs...)
		}
	}
	return items, facts, 0, false, nil
}

// stage marks a point between two writes: the crash tests kill the process
// there (crash_test.go) and check that what is left is whole. It is passed
// in (Options, accept), never a package variable; nil marks nothing.
type stage func(name string)

func (f stage) at(name string) {
	if f != nil {
		f(name)
	}
}

func addCount(m map[string]int, k string, v int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k] += v
	return m
}

// memoryFile is MEMORY.md as read for a month: its text and its list items.
type memoryFile struct {
	text  string
	lines []string
}

func readMemory(home string) (memoryFile, error) {
	b, err := os.ReadFile(filepath.Join(home, "MEMORY.md"))
	if errors.Is(err, os.ErrNotExist) {
		return memoryFile{}, nil
	}
	if err != nil {
		return memoryFile{}, fmt.Errorf("read MEMORY.md: %w", err)
	}
	return memoryFile{text: string(b), lines: splitLines(string(b))}, nil
}
