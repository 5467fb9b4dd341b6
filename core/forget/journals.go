package forget

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"

	"agent/core/forgotten"
	jrnl "agent/core/journal"
)

// isJournal is a device's journal of user-owned records (or a file-sync
// tool's copy of one): JSON lines, rewritten value by value, never as text.
func isJournal(rel string) bool {
	return path.Dir(rel) == jrnl.Dir && strings.HasSuffix(rel, ".jsonl") && !strings.HasPrefix(path.Base(rel), ".")
}

// structural are the fields of a journal line that say what it is rather
// than what the user said: the stamp, the kind of record, the record's key
// (a profile key, a reminder's id, a job's name) and the operation; and,
// inside a value, the fields every device reads back as they are (times,
// a status, a schedule and its zone, a forget's hash). A phrase is not
// looked for in them: forgetting "set", "daily" or "2026" must not turn
// lines into ones every other device refuses.
var structural = map[string]bool{"hlc": true, "kind": true, "key": true, "op": true}

var structuralValue = map[string]bool{
	"due_at": true, "created_at": true, "delivered_at": true, "status": true,
	"schedule": true, "zone": true, "enabled": true,
	"salt": true, "mac": true, "hash": true, "runes": true,
}

// findJournal lists the lines of a journal holding what is forgotten. The
// journal is rewritten at the commit, under the journal's lock, from its
// content then (an append made meanwhile is kept, and rewritten too).
func (p *Plan) findJournal(rel string, data []byte) error {
	_, lines := rewriteJournal(data, p.find)
	if len(lines) == 0 {
		return nil
	}
	raw := splitKeep(string(data))
	for _, l := range lines {
		pl := Place{Kind: "file", Path: rel, Line: l.line, Count: l.count, Note: "a journal of profile, reminders and jobs"}
		pl.show(raw[l.line-1], p.find)
		p.Places = append(p.Places, pl)
	}
	p.journals = append(p.journals, rel)
	return nil
}

type lineCount struct{ line, count int }

// rewriteJournal replaces what f finds inside the string values of each
// journal line (decoded, so a phrase JSON escapes is found as written, and
// the line stays a line every device can read), re-encoding only the lines
// that changed; the others stay byte for byte. A line that is not JSON (a
// torn last line, a line a crash cut) is replaced in as text, as any file.
func rewriteJournal(data []byte, f finder) ([]byte, []lineCount) {
	var out bytes.Buffer
	var changed []lineCount
	for i, line := range splitKeep(string(data)) {
		body, eol := strings.CutSuffix(line, "\n")
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		if !eol || dec.Decode(&v) != nil || dec.More() {
			nl, n := replaceFound(line, f)
			out.WriteString(nl)
			if n > 0 {
				changed = append(changed, lineCount{i + 1, n})
			}
			continue
		}
		n := 0
		for k, x := range v {
			if !structural[k] {
				v[k] = replaceJSON(x, f, &n)
			}
		}
		if n == 0 {
			out.WriteString(line)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil { // cannot happen for what was just decoded
			out.WriteString(line)
			continue
		}
		out.Write(b)
		out.WriteByte('\n')
		changed = append(changed, lineCount{i + 1, n})
	}
	return out.Bytes(), changed
}

// replaceJSON replaces inside every string of a decoded JSON value (not the
// names of an object's fields, which are the format's).
func replaceJSON(v any, f finder, n *int) any {
	switch x := v.(type) {
	case string:
		s, c := replaceFound(x, f)
		*n += c
		return s
	case []any:
		for i := range x {
			x[i] = replaceJSON(x[i], f, n)
		}
	case map[string]any:
		for k := range x {
			if !structuralValue[k] {
				x[k] = replaceJSON(x[k], f, n)
			}
		}
	}
	return v
}

// rewriteJournals rewrites every journal holding the forgotten phrase of
// row id, by its hash, under the journal lock: what is in each file now,
// appends made since the plan included, so none is lost. Run again after a
// crash it finds nothing left to change.
func rewriteJournals(ctx context.Context, home string, db *sql.DB, id string) (int, error) {
	f, err := finderOf(ctx, db, id)
	if err != nil || f == nil {
		return 0, err
	}
	dir := filepath.Join(home, filepath.FromSlash(jrnl.Dir))
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("forget: %w", err)
	}
	files := 0
	err = jrnl.Locked(home, func() error {
		for _, e := range ents {
			rel := jrnl.Dir + "/" + e.Name()
			if !e.Type().IsRegular() || !isJournal(rel) {
				continue
			}
			file := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(file)
			if err != nil {
				return fmt.Errorf("forget: read %s: %w", rel, err)
			}
			out, lines := rewriteJournal(data, f)
			if len(lines) == 0 {
				continue
			}
			mode := os.FileMode(0o600)
			if st, err := os.Stat(file); err == nil {
				mode = st.Mode().Perm()
			}
			if err := renameio.WriteFile(file, out, mode); err != nil {
				return fmt.Errorf("forget: rewrite %s: %w", rel, err)
			}
			files++
		}
		return nil
	})
	return files, err
}

// finderOf is the finder of the forgotten row id, by its hash; nil for a
// row that is not a phrase, or whose key is not here.
func finderOf(ctx context.Context, db *sql.DB, id string) (finder, error) {
	p, ok, err := forgotten.Of(ctx, db, id)
	if err != nil || !ok {
		return nil, err
	}
	fs, err := findersOf(ctx, db, []forgotten.Phrase{p})
	if err != nil || len(fs) == 0 {
		return nil, err
	}
	return fs[0], nil
}
