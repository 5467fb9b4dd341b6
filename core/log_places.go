package core

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"agent/core/statedb"
	"agent/memory"
)

// logPlacesStep is the name of core's migration in Go that fills the
// places of turns stored before migration 0008.
const logPlacesStep = "0009_log_places.go"

// coreSteps are core's migrations in Go (statedb.Set.Steps).
var coreSteps = map[string]statedb.Step{logPlacesStep: backfillLogPlaces}

// backfillLogPlaces fills, once, where each user message stored before
// migration 0008 was logged (messages.log_path NULL): by the heading
// "### HH:MM · session NAME" of its session whose entry holds the
// message's first line, in order. It is the last reading of the logs'
// headings: forget and compaction find a turn by its stored place. A turn
// not found is marked not logged (”), as one sent with --no-log is; a log
// that cannot be read is passed over the same way.
func backfillLogPlaces(ctx context.Context, tx *sql.Tx, home string) error {
	type turn struct {
		id            int64
		session, text string
	}
	rows, err := tx.QueryContext(ctx, `SELECT m.id, s.name, m.content FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE m.role = 'user' AND m.log_path IS NULL ORDER BY m.session_id, m.id`)
	if err != nil {
		return err
	}
	var turns []turn
	for rows.Next() {
		var t turn
		if err := rows.Scan(&t.id, &t.session, &t.text); err != nil {
			rows.Close()
			return err
		}
		turns = append(turns, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(turns) == 0 {
		return err
	}
	entries := headedEntries(home)
	next := map[string]int{} // per session, the first entry not yet matched
	for _, t := range turns {
		probe := memory.TurnProbe(t.text)
		place := LogSpan{}
		list := entries[t.session]
		for j := next[t.session]; j < len(list); j++ {
			if strings.Contains(list[j].text, probe) {
				place, next[t.session] = list[j].span, j+1
				break
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET log_path = ?1, log_start = ?2, log_end = ?3 WHERE id = ?4`,
			place.Path, place.Start, place.End, t.id); err != nil {
			return fmt.Errorf("fill the place of message %d: %w", t.id, err)
		}
	}
	return nil
}

// headedEntry is a logged turn found by its heading: its place (heading
// to last non-blank line, 1-based) and its text.
type headedEntry struct {
	span LogSpan
	text string
}

// headedEntries reads the daily logs, oldest first, for the entries headed
// "### … · session NAME", by NAME.
func headedEntries(home string) map[string][]headedEntry {
	out := map[string][]headedEntry{}
	paths, _ := filepath.Glob(filepath.Join(home, LogsDir, "*.md"))
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		rel := LogsDir + "/" + filepath.Base(p)
		lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			rest, ok := strings.CutPrefix(lines[i], "### ")
			if !ok {
				continue
			}
			_, name, ok := strings.Cut(rest, memory.TurnHeadingMark)
			if !ok {
				continue
			}
			end := i
			for k := i + 1; k < len(lines) && !strings.HasPrefix(lines[k], "#"); k++ {
				if strings.TrimSpace(lines[k]) != "" {
					end = k
				}
			}
			name = strings.TrimSpace(name)
			out[name] = append(out[name], headedEntry{
				span: LogSpan{Path: rel, Start: i + 1, End: end + 1},
				text: strings.Join(lines[i+1:end+1], "\n"),
			})
			i = end
		}
	}
	return out
}
