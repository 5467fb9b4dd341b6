package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/watch"
	"agent/index"
	"agent/index/timewords"
	"agent/memory/printable"
)

// memoryIndexCommands: agent memory reindex, search, watch, status.
func (a *app) memoryIndexCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:  "reindex",
			Usage: "bring the search index up to date with MEMORY.md and logs/ (incremental)",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "full", Usage: "rebuild the index from scratch"},
			},
			Action: a.runReindex,
		},
		{
			Name:      "search",
			Usage:     "search memory: best chunks first, with path:start-end, heading and snippet",
			ArgsUsage: "QUERY (or - to read it from standard input)",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "k", Value: index.DefaultK, Usage: "number of hits"},
				&cli.BoolFlag{Name: "raw", Usage: "QUERY is FTS5 query syntax, passed through"},
				&cli.BoolFlag{Name: "no-refresh", Usage: "search the index as it is, without checking files for changes"},
				&cli.StringFlag{Name: "since", Usage: "only entries dated on or after `YYYY-MM-DD` (daily logs, dated notes)"},
				&cli.StringFlag{Name: "until", Usage: "only entries dated on or before `YYYY-MM-DD`"},
			},
			Action: a.runSearch,
		},
		{
			Name:   "watch",
			Usage:  "keep the index up to date as files change, until interrupted",
			Action: a.runWatch,
		},
		{
			Name:   "status",
			Usage:  "what the index holds and how many files changed since the last reindex",
			Action: a.runIndexStatus,
		},
	}
}

// openIndex opens the workspace's index without opening state.db: search
// runs in a fresh process every time, and state.db's checks and migrations
// would be most of its start-up. A directory without state.db is still
// refused, as every command refuses it.
func (a *app) openIndex(ctx context.Context) (*index.Index, string, error) {
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, "", err
	}
	if err := core.OpenFiles(ctx, home, a.opening()); err != nil {
		return nil, "", err
	}
	ix, err := index.Open(ctx, home, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		return nil, "", err
	}
	if err := a.setEmbedder(ix); err != nil {
		ix.Close()
		return nil, "", err
	}
	return ix, home, nil
}

// statsJSON is the --json shape of reindex (documented in docs/cli-index.md).
type statsJSON struct {
	Full      bool    `json:"full"`
	Files     int     `json:"files"`
	Chunks    int     `json:"chunks"`
	Bytes     int64   `json:"bytes"`
	New       int     `json:"new"`
	Changed   int     `json:"changed"`
	Removed   int     `json:"removed"`
	Unchanged int     `json:"unchanged"`
	Skipped   int     `json:"skipped"`
	Seconds   float64 `json:"seconds"`
	// Embedded is there only with an embedding model (cmd_embed.go).
	Embedded *embedJSON `json:"embedded,omitempty"`
}

func (a *app) runReindex(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("reindex takes no arguments")
	}
	ix, _, err := a.openIndex(ctx)
	if err != nil {
		return err
	}
	defer ix.Close()
	// A rebuild allocates and drops about three times the workspace's size
	// in parse trees and buffers while its live heap stays small, so the
	// default GC would run every few MB and take a fifth of the CPU. Fewer
	// collections, under a soft limit that keeps the peak RSS of a 100 MB
	// workspace's rebuild under 80 MB (docs/decisions-index.md).
	debug.SetGCPercent(200)
	debug.SetMemoryLimit(32 << 20)
	opts := index.ReindexOptions{Full: cmd.Bool("full")}
	bar := a.progressLine("agent: indexing")
	if bar != nil {
		opts.Progress = bar.set
	}
	st, err := ix.Reindex(ctx, opts)
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return err
	}
	a.infof("%s", summary(st))
	emb := a.embedAll(ctx, ix)
	if a.jsonOut {
		if err := a.writeJSON(statsJSON{
			Full: st.Full, Files: st.Files, Chunks: st.Chunks, Bytes: st.Bytes,
			New: st.New, Changed: st.Changed, Removed: st.Removed, Unchanged: st.Unchanged,
			Skipped: st.Skipped, Seconds: st.Duration.Seconds(), Embedded: emb,
		}); err != nil {
			return err
		}
	}
	return nil
}

// summary is reindex's one line on stderr.
func summary(st index.Stats) string {
	skipped := ""
	if st.Skipped > 0 {
		skipped = fmt.Sprintf(", %d skipped", st.Skipped)
	}
	return fmt.Sprintf("indexed %d files (%d new, %d changed, %d removed%s), %d chunks in %.1fs",
		st.Files, st.New, st.Changed, st.Removed, skipped, st.Chunks, st.Duration.Seconds())
}

// hitJSON is the --json shape of one search hit (docs/cli-index.md).
type hitJSON struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Heading   string  `json:"heading"`
	Date      string  `json:"date"`
	By        string  `json:"by"` // "user", or "assistant" for its words in a logged turn
	Score     float64 `json:"score"`
	Query     string  `json:"query"`
	Snippet   string  `json:"snippet"`
	Text      string  `json:"text"`
	// Corrected: the query's words that matched nothing and the words
	// searched in their place; absent when none.
	Corrected []index.Correction `json:"corrected,omitempty"`
}

var unmark = strings.NewReplacer(index.MarkStart, "", index.MarkEnd, "")

func (a *app) runSearch(ctx context.Context, cmd *cli.Command) error {
	query := strings.Join(cmd.Args().Slice(), " ")
	if query == "-" {
		q, err := a.textArg(cmd, "query")
		if err != nil {
			return err
		}
		query = q
	}
	if strings.TrimSpace(query) == "" {
		return usagef("search needs a QUERY (or - to read it from standard input)")
	}
	k := cmd.Int("k")
	if k < 1 {
		return usagef("-k must be at least 1, got %d", k)
	}
	since, until := cmd.String("since"), cmd.String("until")
	for _, d := range []struct{ flag, v string }{{"since", since}, {"until", until}} {
		if _, err := time.Parse(time.DateOnly, d.v); d.v != "" && err != nil {
			return usagef("--%s %q: want a date, YYYY-MM-DD", d.flag, d.v)
		}
	}
	if since != "" && until != "" && until < since {
		return usagef("--until %s is before --since %s", until, since)
	}
	ix, home, err := a.openIndex(ctx)
	if err != nil {
		return err
	}
	defer ix.Close()
	if _, ok := timewords.Find(query, a.now()); ok && !cmd.Bool("raw") {
		// "yesterday" is the user's: their zone is read from the profile,
		// which a search without time words does not open state.db for.
		if ws, err := core.Open(ctx, home); err == nil {
			a.zone = core.WorkspaceZone(ctx, ws)
			ws.Close()
		}
	}
	return a.searchMemory(query, func(opts index.SearchOptions) ([]index.Hit, error) {
		opts.K, opts.Raw, opts.Fresh = k, cmd.Bool("raw"), !cmd.Bool("no-refresh")
		opts.Since, opts.Until = since, until
		return ix.Search(ctx, query, opts)
	})
}

// searchMemory runs a memory search through search (the index's, or the
// REPL's open one) and prints its hits: the one code path of `agent memory
// search` and /search, so both show the same snippets, escaped alike.
func (a *app) searchMemory(query string, search func(index.SearchOptions) ([]index.Hit, error)) error {
	zone := a.zone
	if zone == nil {
		zone = time.Local
	}
	hits, err := search(index.SearchOptions{K: index.DefaultK, Fresh: true, Now: a.now().In(zone)})
	if errors.Is(err, index.ErrNotFound) {
		// Documented: exit 3, nothing on stdout (with --json an empty
		// list, which a JSON reader can parse); a person is told so.
		if a.jsonOut {
			if err := a.writeJSON([]hitJSON{}); err != nil {
				return err
			}
		}
		a.emptyHint("nothing in memory matches %q (remember something with: agent memory add TEXT, or agent log TEXT)", query)
		return silentExit(exitNotFound)
	}
	if err != nil {
		return err
	}
	for _, c := range hits[0].Corrected {
		a.infof("searched \"%s\" for \"%s\"", printable.Escape(c.Searched), printable.Escape(c.Typed))
	}
	return a.printHits(hits)
}

// printHits shows search hits: JSON, a snippet per hit fitted to the
// terminal, or tab-separated records.
func (a *app) printHits(hits []index.Hit) error {
	switch {
	case a.jsonOut:
		out := make([]hitJSON, len(hits))
		for i, h := range hits {
			out[i] = hitJSON{h.Path, h.StartLine, h.EndLine, h.Heading, h.Date, speaker(h), h.Score, h.Query, unmark.Replace(h.Snippet), h.Text, h.Corrected}
		}
		return a.writeJSON(out)
	case a.io.OutTTY:
		for i, h := range hits {
			if i > 0 {
				fmt.Fprintln(a.io.Out)
			}
			// A notes folder's file names and text are anyone's: an escape
			// sequence or a newline in them is shown, never acted on.
			loc := fmt.Sprintf("%s:%d-%d", printable.EscapeInvisible(h.Path), h.StartLine, h.EndLine)
			heading := printable.EscapeInvisible(h.Heading)
			if h.By != "" {
				heading += " (" + h.By + "'s words)"
			}
			if cols := a.io.cols(); cols > 0 {
				heading = fitCell(heading, max(cols-displayWidth(loc)-2, minCol))
			}
			fmt.Fprintf(a.io.Out, "%s  %s\n", a.ansi("36", loc), a.ansi("1", heading))
			for _, l := range wrapWords(a.highlight(h.Snippet), a.io.cols()-4) {
				fmt.Fprintf(a.io.Out, "    %s\n", l)
			}
		}
		return nil
	default:
		for _, h := range hits {
			if err := writeTSV(a.io.Out, h.Path, strconv.Itoa(h.StartLine), strconv.Itoa(h.EndLine), h.Heading,
				strconv.FormatFloat(h.Score, 'g', 4, 64), unmark.Replace(h.Snippet)); err != nil {
				return err
			}
		}
		return nil
	}
}

// speaker is whose words a hit is, as --json says it: "user" or
// "assistant" (index.Hit.By).
func speaker(h index.Hit) string {
	if h.By == "" {
		return "user"
	}
	return h.By
}

// highlight renders a snippet for the terminal: matched terms bold, the
// snippet on one line.
func (a *app) highlight(snippet string) string {
	var b strings.Builder
	rest := printable.OneLine(snippet)
	for {
		i := strings.Index(rest, index.MarkStart)
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], index.MarkEnd)
		if j < 0 {
			break
		}
		b.WriteString(printable.Escape(unmark.Replace(rest[:i])))
		b.WriteString(a.ansi("1;33", printable.Escape(unmark.Replace(rest[i+len(index.MarkStart):i+j]))))
		rest = rest[i+j+len(index.MarkEnd):]
	}
	b.WriteString(printable.Escape(unmark.Replace(rest)))
	return b.String()
}

// statusJSON is the --json shape of status (docs/cli-index.md).
type statusJSON struct {
	Files       int     `json:"files"`
	Chunks      int     `json:"chunks"`
	Bytes       int64   `json:"bytes"`
	Problems    int     `json:"problems"`
	LastReindex *string `json:"last_reindex"`
	Changed     int     `json:"changed"`
	Rebuild     string  `json:"rebuild"`
}

func (a *app) runIndexStatus(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("status takes no arguments")
	}
	ix, home, err := a.openIndex(ctx)
	if err != nil {
		return err
	}
	defer ix.Close()
	if a.io.OutTTY && !a.jsonOut { // the last reindex is said in the user's zone
		if ws, err := core.OpenWith(ctx, home, a.opening()); err == nil {
			a.zone = core.WorkspaceZone(ctx, ws)
			ws.Close()
		}
	}
	st, err := ix.Status(ctx)
	if err != nil {
		return err
	}
	var last *string
	if !st.LastReindex.IsZero() {
		s := st.LastReindex.UTC().Format(time.RFC3339)
		last = &s
	}
	if a.jsonOut {
		return a.writeJSON(statusJSON{st.Files, st.Chunks, st.Bytes, st.Problems, last, st.Changed, st.Rebuild})
	}
	lastText := "never"
	switch {
	case last != nil && a.io.OutTTY:
		lastText = a.personTime(st.LastReindex)
	case last != nil:
		lastText = jsonTime(st.LastReindex) // piped: the one timestamp format of TSV
	}
	rows := [][2]string{
		{"files", strconv.Itoa(st.Files)},
		{"chunks", strconv.Itoa(st.Chunks)},
		{"bytes", strconv.FormatInt(st.Bytes, 10)},
		{"problems", strconv.Itoa(st.Problems)},
		{"last_reindex", lastText},
		{"changed", strconv.Itoa(st.Changed)},
	}
	if st.Rebuild != "" {
		rows = append(rows, [2]string{"rebuild", st.Rebuild})
	}
	for _, r := range rows {
		if a.io.OutTTY {
			fmt.Fprintf(a.io.Out, "%-13s %s\n", r[0], r[1])
		} else if err := writeTSV(a.io.Out, r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// runWatch keeps the index fresh until the context is cancelled (SIGINT or
// SIGTERM), one line on stderr for each refresh that changed something
// (watch.KeepIndexFresh).
func (a *app) runWatch(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("watch takes no arguments")
	}
	ix, home, err := a.openIndex(ctx)
	if err != nil {
		return err
	}
	defer ix.Close()
	poke, stopEmbedding, err := a.embedInBackground(ctx, home)
	if err != nil {
		return err
	}
	defer stopEmbedding()
	return watch.KeepIndexFresh(ctx, home, ix, watch.Report{
		Started: func(st index.Stats, unsure error) {
			a.infof("watching %s (%d files, %d chunks); stop with Ctrl-C", home, st.Files, st.Chunks)
			if unsure != nil {
				a.infof("searches will check the files themselves while %v", unsure)
			}
			poke()
		},
		Refreshed: func(st index.Stats) { a.infof("%s", summary(st)); poke() },
		Note:      func(msg string) { a.warnf("%s", msg) },
		Gone: func() error {
			if err := core.Locate(home); errors.Is(err, core.ErrNoWorkspace) {
				return fmt.Errorf("the workspace at %s is gone (deleted or moved): stopping the watch", home)
			}
			return nil
		},
	})
}
