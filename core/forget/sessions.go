package forget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agent/memory"
)

// Sessions plans deleting whole sessions — by name, and/or every session
// last active before before (zero: none) — with their messages, stored
// contexts and requests, compaction summaries, and the turns they logged
// in logs/ (each "### HH:MM · session NAME" entry, up to the next
// heading). Digest lines citing a removed turn are marked, the citations
// after it renumbered. Nothing is written.
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
	if err := p.findTurns(home, ids); err != nil {
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

// findTurns plans removing the sessions' logged turns from the daily logs.
func (p *Plan) findTurns(home string, ids map[string]int64) error {
	ents, err := os.ReadDir(filepath.Join(home, "logs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, en := range ents {
		if en.IsDir() || !strings.HasSuffix(en.Name(), ".md") {
			continue
		}
		rel := "logs/" + en.Name()
		data, err := os.ReadFile(filepath.Join(home, rel))
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		lines := splitKeep(string(data))
		keep := make([]bool, len(lines))
		removing := false
		removed := 0
		for i, l := range lines {
			t := strings.TrimRight(l, "\r\n")
			if strings.HasPrefix(t, "#") {
				removing = false
				if name, ok := turnSession(t); ok {
					if _, del := ids[name]; del {
						removing = true
						p.Places = append(p.Places, Place{Kind: "file", Path: rel, Line: i + 1, Session: name, Count: 1, Note: "logged turn"})
					}
				}
			}
			keep[i] = !removing
			if removing {
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
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "# "+strings.TrimSuffix(en.Name(), ".md"))) == "" {
			p.Places[len(p.Places)-1].Note = "logged turn; nothing else left in the log"
		}
		p.files = append(p.files, e)
		p.removed = append(p.removed, gone.String())
	}
	return nil
}

// turnSession reads the session name of a logged turn's heading.
func turnSession(heading string) (string, bool) {
	rest, ok := strings.CutPrefix(heading, "### ")
	if !ok {
		return "", false
	}
	_, name, ok := strings.Cut(rest, memory.TurnHeadingMark)
	return strings.TrimSpace(name), ok
}
