package forget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agent/memory"
)

// Sessions plans deleting whole sessions — by name, and/or every session
// last active before before (zero: none) — with their messages, stored
// contexts and requests, compaction summaries, and the turns they logged
// in logs/ (each entry where its message says it was logged, heading to
// last line, with the blank lines after it). Digest lines citing a removed
// turn are marked, the citations after it renumbered. Nothing is written.
//
// ix, when not nil, gives the vectors of the removed turns' paragraphs, to
// be deleted with them.
func Sessions(ctx context.Context, home string, db *sql.DB, ix Index, names []string, before time.Time) (*Plan, error) {
	p := &Plan{}
	ids := map[string]int64{}
	for _, n := range names {
		var id int64
		err := db.QueryRowContext(ctx, `SELECT id FROM sessions WHERE name = ?1`, n).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("no session %q: %w", n, ErrNotFound)
		}
		if err != nil {
			return nil, err
		}
		ids[n] = id
	}
	if !before.IsZero() {
		rows, err := db.QueryContext(ctx, `SELECT id, name FROM sessions WHERE updated_at < ?1`, before.UTC().Format(time.RFC3339Nano))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var n string
			if err := rows.Scan(&id, &n); err != nil {
				rows.Close()
				return nil, err
			}
			ids[n] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(ids)) { // listed in a stable order
		id := ids[n]
		var msgs int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE session_id = ?1`, id).Scan(&msgs); err != nil {
			return nil, err
		}
		p.sessions = append(p.sessions, id)
		p.Places = append(p.Places, Place{Kind: "session", Session: n, Table: "messages", Count: msgs})
	}
	if len(ids) == 0 {
		return p, nil
	}
	if err := p.findTurns(ctx, home, db, ids); err != nil {
		return nil, err
	}
	p.markDigests(home)
	p.indexHas = len(p.files) > 0
	if ix != nil && len(p.removed) > 0 {
		_, units, err := ix.Matching(ctx, func(text string) bool {
			t := strings.TrimSpace(text)
			for _, b := range p.removed {
				if t != "" && strings.Contains(b, t) {
					return true
				}
			}
			return false
		})
		if err != nil {
			return nil, err
		}
		p.units = units
	}
	return p, nil
}

// findTurns plans removing the sessions' logged turns from the daily logs,
// found where their messages say they were logged (messages.log_path,
// log_start, log_end), never by the session's name in a heading: another
// device's session of the same name logged its turns in the same logs.
// A place whose lines no longer hold the turn (the log edited since) is
// passed over, as compaction passes it over.
func (p *Plan) findTurns(ctx context.Context, home string, db *sql.DB, ids map[string]int64) error {
	type entry struct {
		session    string
		probe      string
		start, end int // 1-based, the heading and the last line
	}
	byPath := map[string][]entry{}
	for name, id := range ids {
		rows, err := db.QueryContext(ctx, `SELECT content, log_path, log_start, log_end FROM messages
			WHERE session_id = ?1 AND role = 'user' AND log_path != '' AND log_start > 0 ORDER BY id`, id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var content, path string
			var e entry
			if err := rows.Scan(&content, &path, &e.start, &e.end); err != nil {
				rows.Close()
				return err
			}
			e.session, e.probe = name, memory.TurnProbe(content)
			byPath[path] = append(byPath[path], e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(byPath)) {
		if !strings.HasPrefix(rel, "logs/") || strings.Contains(rel[len("logs/"):], "/") || !strings.HasSuffix(rel, ".md") {
			continue // not a daily log: a place this program never writes
		}
		data, err := os.ReadFile(filepath.Join(home, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		lines := splitKeep(string(data))
		keep := make([]bool, len(lines))
		for i := range keep {
			keep[i] = true
		}
		entries := byPath[rel]
		slices.SortFunc(entries, func(a, b entry) int { return a.start - b.start })
		removed := 0
		for _, e := range entries {
			if e.start < 1 || e.end < e.start || e.end > len(lines) || !keep[e.start-1] ||
				!strings.HasPrefix(lines[e.start-1], "### ") || !strings.Contains(strings.Join(lines[e.start:e.end], ""), e.probe) {
				continue
			}
			p.Places = append(p.Places, Place{Kind: "file", Path: rel, Line: e.start, Session: e.session, Count: 1, Note: "logged turn"})
			end := e.end
			for end < len(lines) && strings.TrimSpace(lines[end]) == "" {
				end++ // the blank lines after it go with it
			}
			for k := e.start - 1; k < end; k++ {
				keep[k] = false
				removed++
			}
		}
		if removed == 0 {
			continue
		}
		var out, gone strings.Builder
		newNum := make([]int, len(lines)+1)
		n := 0
		for i, l := range lines {
			if !keep[i] {
				gone.WriteString(l)
			}
			if keep[i] {
				out.WriteString(l)
				n++
				newNum[i+1] = n
			}
		}
		e := fileEdit{rel: rel, to: rel, old: data, new: []byte(out.String()),
			newLine: func(k int) int {
				if k < 1 || k >= len(newNum) {
					return k
				}
				return newNum[k]
			}}
		day := strings.TrimSuffix(path.Base(rel), ".md")
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "# "+day)) == "" {
			p.Places[len(p.Places)-1].Note = "logged turn; nothing else left in the log"
		}
		p.files = append(p.files, e)
		p.removed = append(p.removed, gone.String())
	}
	return nil
}
