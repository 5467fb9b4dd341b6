package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core/forget"
	"agent/core/importer"
	"agent/memory/printable"
)

// importCommand: agent import chatgpt|claude FILE, list, undo ID — chat
// histories from other assistants (docs/cli-import.md).
func (a *app) importCommand() *cli.Command {
	from := func(origin, what string) *cli.Command {
		return &cli.Command{
			Name:      origin,
			Usage:     "import " + what + " into imports/ (one markdown file per conversation)",
			ArgsUsage: "FILE",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "dry-run", Usage: "say what would be written, write nothing"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error { return a.runImport(ctx, cmd, origin) },
		}
	}
	return &cli.Command{
		Name:  "import",
		Usage: "bring in your ChatGPT and Claude histories, cited and undoable",
		Commands: []*cli.Command{
			from(importer.ChatGPT, "a ChatGPT export (conversations.json or the export's zip)"),
			from(importer.Claude, "a Claude export (conversations.json or the export's zip)"),
			{Name: "list", Usage: "the imports made, newest last", Action: a.runImportList},
			{Name: "undo", Usage: "remove what one import wrote (files edited since are kept)", ArgsUsage: "ID", Action: a.runImportUndo,
				Flags: []cli.Flag{&cli.BoolFlag{Name: "dry-run", Usage: "only list what would be removed and kept; change nothing"}}},
		},
		Action: a.requireSubcommand,
	}
}

func (a *app) runImport(ctx context.Context, cmd *cli.Command, origin string) error {
	id, err := a.importFile(ctx, cmd, origin)
	if id > 0 {
		return interrupted(err, fmt.Sprintf("import %d is recorded; its files are put in place by the next agent import or agent import list", id))
	}
	return interrupted(err, "nothing was imported; run it again to resume")
}

// importFile is runImport's work; id is the import recorded, 0 when none.
func (a *app) importFile(ctx context.Context, cmd *cli.Command, origin string) (int64, error) {
	if cmd.Args().Len() != 1 {
		return 0, usagef("import %s takes one FILE", origin)
	}
	file := cmd.Args().First()
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return 0, err
	}
	p, err := importer.ReadExport(file, origin)
	if err != nil {
		return 0, err
	}
	forgotten, err := forget.LoadForgotten(ctx, ws.State)
	if err != nil {
		return 0, err
	}
	opts := importer.Options{Source: file, DryRun: cmd.Bool("dry-run"), Location: loc, Now: a.now(), Forgotten: forgotten.Holds}
	progress := a.progressLine("agent: importing")
	if progress != nil {
		opts.Progress = progress.set
	}
	res, err := importer.Import(ctx, ws.State, ws.Home, p, opts)
	if progress != nil {
		progress.clear()
	}
	if err != nil {
		return res.ID, err
	}
	if a.jsonOut {
		if res.Files == nil {
			res.Files = []importer.Planned{}
		}
		if err := a.writeJSON(res); err != nil {
			return res.ID, err
		}
	} else if !a.io.OutTTY || res.DryRun {
		// One line per file is for a script (or a dry run, which asks what
		// would be written); on a terminal an export of 2,000 conversations
		// would bury the summary: agent import list and the files are there.
		for _, f := range res.Files {
			if err := writeTSV(a.io.Out, f.Path, strconv.Itoa(f.Messages), f.Title); err != nil {
				return res.ID, err
			}
		}
	}
	verb := "imported"
	if res.DryRun {
		verb = "would import"
	}
	as := ""
	if res.ID > 0 {
		as = " as import " + strconv.FormatInt(res.ID, 10) + " (undo: agent import undo " + strconv.FormatInt(res.ID, 10) + ")"
	}
	if res.Forgotten > 0 {
		a.warnf("%d messages left out: they hold a phrase you told agent to forget", res.Forgotten)
	}
	a.infof("%s %d conversations (%d messages)%s; %d already imported, %d skipped (no text)",
		verb, len(res.Files), res.Messages, as, res.Already, res.Skipped)
	if len(res.InKept) > 0 {
		a.infof("not written again: %d conversations are in files an undo kept because you had edited them (%s)",
			len(res.InKept), strings.Join(res.InKept, ", "))
	}
	// Ids, kinds and notes come from the export as it was written: escaped,
	// so a control byte in one cannot act on the terminal.
	// The kinds are the export's; with nothing new they would say
	// "imported 6 text" right after "imported 0 conversations".
	if k := kindsLine(res.Counts); k != "" && len(res.Files) > 0 {
		a.infof("%s", printable.Escape(k))
	}
	for _, n := range res.Notes {
		a.warnf("%s", printable.Escape(n.String()))
	}
	for _, u := range res.Unreadable {
		a.warnf("skipped %s", printable.Escape(u.String()))
	}
	return res.ID, nil
}

// kindsLine says how many messages (and parts of them) of each kind the
// export held: imported as text, named, left out.
func kindsLine(c importer.Counts) string {
	list := func(m map[string]int) string {
		keys := slices.Sorted(maps.Keys(m))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Itoa(m[k]) + " " + k
		}
		return strings.Join(parts, ", ")
	}
	var out []string
	if len(c.Text) > 0 {
		out = append(out, "imported "+list(c.Text))
	}
	if len(c.Named) > 0 {
		out = append(out, "named "+list(c.Named))
	}
	if len(c.LeftOut) > 0 {
		out = append(out, "left out "+list(c.LeftOut))
	}
	if len(out) == 0 {
		return ""
	}
	return "by kind: " + strings.Join(out, "; ")
}

func (a *app) runImportList(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("import list takes no arguments")
	}
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	if err := importer.Recover(ctx, ws.State, ws.Home); err != nil {
		return err
	}
	list, err := importer.List(ctx, ws.State)
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.writeJSON(list)
	}
	if len(list) == 0 {
		a.emptyHint("no imports yet (bring a history in with: agent import chatgpt FILE, or agent import claude FILE)")
		return nil
	}
	rows := make([][]string, 0, len(list))
	for _, r := range list {
		state := "in place"
		if r.UndoneAt != nil {
			state = "undone"
		}
		at := jsonTime(r.At) // piped: the one timestamp format of TSV
		if a.io.OutTTY {
			at = a.personTime(r.At)
		}
		rows = append(rows, []string{strconv.FormatInt(r.ID, 10), at, r.Origin,
			strconv.Itoa(r.Conversations), strconv.Itoa(r.Messages), state, r.Source})
	}
	if a.io.OutTTY {
		if len(rows) == 0 {
			return nil
		}
		tw := a.newTable("ID", "AT", "ORIGIN", "CONVERSATIONS", "MESSAGES", "STATE", "FILE").timed("AT")
		for _, r := range rows {
			tw.row(r...)
		}
		return tw.flush()
	}
	for _, r := range rows {
		if err := writeTSV(a.io.Out, r...); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) runImportUndo(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usagef("import undo takes one ID (agent import list)")
	}
	id, err := strconv.ParseInt(cmd.Args().First(), 10, 64)
	if err != nil || id <= 0 {
		return usagef("import undo: %q is not an import id (agent import list)", cmd.Args().First())
	}
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	dry := cmd.Bool("dry-run")
	var res importer.UndoResult
	if dry {
		res, err = importer.UndoDryRun(ctx, ws.State, ws.Home, id)
	} else {
		res, err = importer.Undo(ctx, ws.State, ws.Home, id, a.now())
	}
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.writeJSON(res)
	}
	if res.UndoneAt != "" {
		// An undo is idempotent: asked again, it is done (docs/cli-import.md).
		a.infof("import %d was already undone (%s): nothing to do", id, res.UndoneAt)
		return nil
	}
	removed, kept := "removed", "kept"
	if dry {
		removed, kept = "would remove", "would keep"
	}
	for _, p := range res.Removed {
		if err := writeTSV(a.io.Out, removed, p); err != nil {
			return err
		}
	}
	for _, p := range res.Edited {
		if err := writeTSV(a.io.Out, kept, p); err != nil {
			return err
		}
	}
	if dry {
		a.infof("dry run: undoing import %d would remove %s and keep %d; nothing changed", id,
			printable.Count(len(res.Removed), "file", "files"), len(res.Edited))
		return nil
	}
	a.infof("undid import %d: removed %d files", id, len(res.Removed))
	for _, p := range res.Edited {
		a.warnf("kept %s: edited since the import, it is yours now", p)
	}
	return nil
}
