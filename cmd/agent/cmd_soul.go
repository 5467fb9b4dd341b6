package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/soul"
	"agent/soul/revisions"
)

func (a *app) soulCommand() *cli.Command {
	return &cli.Command{
		Name:   "soul",
		Usage:  "SOUL.md, the agent's persona, with every revision kept",
		Action: a.requireSubcommand,
		Commands: []*cli.Command{
			{
				Name:   "show",
				Usage:  "print SOUL.md",
				Action: a.withSoul(0, 0, a.runSoulShow),
			},
			{
				Name:   "edit",
				Usage:  "edit SOUL.md in $VISUAL or $EDITOR (else vi); saved as a user revision",
				Action: a.withSoul(0, 0, a.runSoulEdit),
			},
			{
				Name:   "history",
				Usage:  "list the revisions, newest first",
				Action: a.withSoul(0, 0, a.runSoulHistory),
			},
			{
				Name:      "diff",
				Usage:     "diff two revisions; one: REV against the current; none: the last change",
				ArgsUsage: "[REV] [REV]",
				Action:    a.withSoul(0, 2, a.runSoulDiff),
			},
			{
				Name:      "revert",
				Usage:     "restore revision REV (recorded as a new revision)",
				ArgsUsage: "REV",
				Action:    a.withSoul(1, 1, a.runSoulRevert),
			},
		},
	}
}

// withSoul checks the arguments (between min and max revision numbers)
// before opening the workspace, so a usage error wins over a missing one,
// then hands the action the soul store and the parsed revisions.
func (a *app) withSoul(min, max int, run func(ctx context.Context, st *soul.Store, revs []int64) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		revs, err := revisionArgs(cmd, min, max, "agent soul history")
		if err != nil {
			return err
		}
		ws, err := a.openWorkspace(ctx)
		if err != nil {
			return err
		}
		defer ws.Close()
		return run(ctx, soul.NewStore(ws.State, ws.Path(core.SoulFile), a.now), revs)
	}
}

// revisionArgs checks that a command got between min and max arguments,
// each a revision number; history names the command that lists them.
func revisionArgs(cmd *cli.Command, min, max int, history string) ([]int64, error) {
	if n := cmd.Args().Len(); n < min || n > max {
		if max == 0 {
			return nil, usagef("%s takes no arguments", strings.TrimPrefix(cmd.FullName(), "agent "))
		}
		return nil, usagef("usage: %s %s", cmd.FullName(), cmd.ArgsUsage)
	}
	var revs []int64
	for _, s := range cmd.Args().Slice() {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return nil, usagef("REV must be a revision number, not %q (see: %s)", s, history)
		}
		revs = append(revs, id)
	}
	return revs, nil
}

// loadSoul loads SOUL.md (recording an editor's change first) and passes its
// warnings on to stderr.
func (a *app) loadSoul(ctx context.Context, st *soul.Store) (soul.Soul, error) {
	s, err := st.Load(ctx)
	if err != nil {
		return soul.Soul{}, err
	}
	for _, w := range s.Warnings {
		a.warnf("%s", w)
	}
	return s, nil
}

// JSON shapes of the soul commands; part of the CLI contract
// (docs/cli-soul.md).
type (
	soulShowJSON struct {
		Revision int64  `json:"revision"`
		Content  string `json:"content"`
	}
	soulRevisionJSON struct {
		ID        int64  `json:"id"`
		Author    string `json:"author"`
		Reason    string `json:"reason"`
		CreatedAt string `json:"created_at"`
		SHA256    string `json:"sha256"`
	}
	soulDiffJSON struct {
		From int64  `json:"from"`
		To   int64  `json:"to"`
		Diff string `json:"diff"`
	}
)

func (a *app) runSoulShow(ctx context.Context, st *soul.Store, _ []int64) error {
	s, err := a.loadSoul(ctx, st)
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.writeJSON(soulShowJSON{s.Revision, s.Content})
	}
	_, err = fmt.Fprint(a.io.Out, s.Content)
	return err
}

func (a *app) runSoulHistory(ctx context.Context, st *soul.Store, _ []int64) error {
	// The history lives in state.db: it is shown even when SOUL.md is gone
	// (that is when it is needed, to pick a revision to restore).
	if _, err := a.loadSoul(ctx, st); errors.Is(err, fs.ErrNotExist) {
		a.warnf("%v", err)
	} else if err != nil {
		return err
	}
	hist, err := st.History(ctx)
	if err != nil {
		return err
	}
	return a.printRevisions(hist)
}

// printRevisions lists revisions (SOUL.md's, MEMORY.md's, a skill's): JSON,
// a table on a terminal, else one tab-separated record each (id, time,
// author, reason). A removal's reason says so.
func (a *app) printRevisions(hist []revisions.Revision) error {
	rows := make([]soulRevisionJSON, 0, len(hist))
	for _, r := range hist {
		reason := r.Reason
		if r.Removed {
			reason = "removed: " + reason
		}
		rows = append(rows, soulRevisionJSON{r.ID, string(r.Author), reason, jsonTime(r.CreatedAt), r.SHA256})
	}
	switch {
	case a.jsonOut:
		return a.writeJSON(rows)
	case a.io.OutTTY:
		tw := a.newTable("REV", "WHEN", "AUTHOR", "REASON").timed("WHEN")
		for _, r := range rows {
			when, _ := time.Parse(time.RFC3339, r.CreatedAt)
			tw.row(strconv.FormatInt(r.ID, 10), a.personTime(when), r.Author, r.Reason)
		}
		return tw.flush()
	}
	for _, r := range rows {
		if err := writeTSV(a.io.Out, strconv.FormatInt(r.ID, 10), r.CreatedAt, r.Author, r.Reason); err != nil {
			return err
		}
	}
	return nil
}

// runSoulDiff compares two revisions. With one, REV against the current
// SOUL.md; with none, the last change: the revision before the current one
// against the current one. (The file always matches the latest revision
// once loaded, so "file against latest revision" would always be empty.)
func (a *app) runSoulDiff(ctx context.Context, st *soul.Store, revs []int64) error {
	cur, err := a.loadSoul(ctx, st)
	if err != nil {
		return err
	}
	from, to := int64(0), cur.Revision
	toContent := cur.Content
	switch len(revs) {
	case 0:
		hist, err := st.History(ctx)
		if err != nil {
			return err
		}
		if len(hist) < 2 {
			return a.printSoulDiff(to, to, "")
		}
		from = hist[1].ID
	case 1:
		from = revs[0]
	case 2:
		from, to = revs[0], revs[1]
		r, err := st.Get(ctx, to)
		if err != nil {
			return err
		}
		toContent = r.Content
	}
	old, err := st.Get(ctx, from)
	if err != nil {
		return err
	}
	return a.printSoulDiff(from, to, revisions.Diff(revName(from), old.Content, revName(to), toContent))
}

func revName(id int64) string { return "SOUL.md@" + strconv.FormatInt(id, 10) }

func (a *app) printSoulDiff(from, to int64, d string) error {
	if a.jsonOut {
		return a.writeJSON(soulDiffJSON{from, to, d})
	}
	if a.io.Color {
		lines := strings.SplitAfter(d, "\n")
		for i, l := range lines {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
				lines[i] = a.ansi("1", strings.TrimSuffix(l, "\n")) + "\n"
			case strings.HasPrefix(l, "+"):
				lines[i] = a.ansi("32", strings.TrimSuffix(l, "\n")) + "\n"
			case strings.HasPrefix(l, "-"):
				lines[i] = a.ansi("31", strings.TrimSuffix(l, "\n")) + "\n"
			case strings.HasPrefix(l, "@@"):
				lines[i] = a.ansi("36", strings.TrimSuffix(l, "\n")) + "\n"
			}
		}
		d = strings.Join(lines, "")
	}
	_, err := fmt.Fprint(a.io.Out, d)
	return err
}

func (a *app) runSoulRevert(ctx context.Context, st *soul.Store, revs []int64) error {
	// No Load first: revert must also work when SOUL.md is missing.
	_, err := st.Revert(ctx, revs[0])
	return err
}

// runSoulEdit opens a temp copy of SOUL.md in the user's editor and saves it
// as a user revision if it changed. The copy is kept, and its path printed,
// whenever saving fails, so an edit is never lost.
func (a *app) runSoulEdit(ctx context.Context, st *soul.Store, _ []int64) error {
	cur, err := a.loadSoul(ctx, st)
	if err != nil {
		return err
	}
	ed, err := a.editCopy(ctx, core.SoulFile, cur.Content)
	if err != nil {
		return fmt.Errorf("%w; SOUL.md left unchanged", err)
	}
	defer ed.done()
	if ed.text == cur.Content {
		a.infof("no changes; SOUL.md left as it was")
		return nil
	}
	ed.keep() // until it is saved
	now, err := st.Load(ctx)
	if err != nil {
		return fmt.Errorf("%w (your edit is kept at %s)", err, ed.path)
	}
	if now.Revision != cur.Revision {
		return fmt.Errorf("SOUL.md changed while you were editing (now revision %d); your edit is kept at %s", now.Revision, ed.path)
	}
	if _, err := st.Save(ctx, ed.text, soul.User, "soul edit"); err != nil {
		return fmt.Errorf("%w (your edit is kept at %s)", err, ed.path)
	}
	ed.kept = false
	return nil
}
