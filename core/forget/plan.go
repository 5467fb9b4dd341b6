// Package forget takes back what the user said: `agent forget TEXT` finds
// every place a phrase went in the workspace (its files, state.db, index.db)
// and replaces it with a marker; `agent sessions delete` removes whole
// conversations and their logged turns. A plan is found and shown first,
// nothing written; Apply then stages every change and commits it through a
// journal that the next open replays or rolls back, so a kill -9 leaves
// either all of it done or nothing (docs/decisions-forget.md).
package forget

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"agent/core/forgotten"
	"agent/index"
	"agent/memory"
)

// Place is one place a phrase (or a deleted session) is, as listed before
// anything changes.
type Place struct {
	// Kind: "file" (a workspace file, rewritten), "notes" (a notes folder's
	// file: reported, never written), "session" (a stored message, its
	// context or request), "revision" (an old version of SOUL.md,
	// MEMORY.md or a skill), "state" (any other row of state.db),
	// "index" (index.db's chunks and vectors, rebuilt).
	Kind    string `json:"kind"`
	Path    string `json:"path,omitempty"` // workspace-relative, or NAME:path for notes
	Line    int    `json:"line,omitempty"`
	Session string `json:"session,omitempty"`
	Turn    int    `json:"turn,omitempty"` // the session's user turn, from 1
	Table   string `json:"table,omitempty"`
	Column  string `json:"column,omitempty"`
	Row     int64  `json:"row,omitempty"`
	Count   int    `json:"count"`          // occurrences (chunks, for the index)
	Note    string `json:"note,omitempty"` // "nothing else left in the file", …
	// Text is the line holding it (a value's first such line), as it is
	// now; Match are the occurrences on it. Empty for a whole file, a
	// session deleted whole and the index.
	Text  string `json:"text,omitempty"`
	Match []Span `json:"match,omitempty"`
}

// Plan is what a forget will do, found without writing anything.
type Plan struct {
	Places []Place
	// Kept lists what the forget will not change (notes folders, files
	// that are not text): the phrase stays there.
	Kept int

	phrase   string
	find     finder // finds the phrase, or the hash another device forgot
	remote   string // the forgotten row applied, when another device forgot it
	files    []fileEdit
	journals []string // journals holding it, rewritten entry by entry at the commit
	rows     []rowEdit
	sessions []int64  // sessions deleted whole
	removed  []string // the logged turns they remove, for their vectors
	units    [][]byte
	indexHas bool
	progress func(done, total int) // nil: none asked
}

// fileEdit is one workspace file's new content.
type fileEdit struct {
	rel     string
	to      string // where it goes: rel, or rel renamed when its name held the phrase
	old     []byte
	new     []byte
	changed []int // lines (1-based) whose text changed, for digests
	// newLine maps a line to its number after the edit, 0 when removed;
	// nil when no line moves (a phrase replaced in place).
	newLine func(n int) int
}

// rowEdit is one state.db value's new content.
type rowEdit struct {
	table, column string
	rowid         int64
	old, value    string // as listed, and as it will be
	rehash        bool   // a revision: its sha256 follows its content
	// recallAt is, for a message's context, where its recalled passages
	// begin once the phrase is out (core's messages.recall_at, which a
	// window folds at): -1 for any other value.
	recallAt int
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool {
	return len(p.files) == 0 && len(p.journals) == 0 && len(p.rows) == 0 && len(p.sessions) == 0 && !p.indexHas
}

// Index is what a forget needs of index.db (agent/index.Index).
type Index interface {
	// Matching counts the chunks whose text match accepts and returns the
	// hashes of their embedded units, whose vectors must go too.
	Matching(ctx context.Context, match func(string) bool) (chunks int, units [][]byte, err error)
	// Purge drops those vectors and rebuilds index.db from the files into
	// a new file, so nothing deleted lingers in free pages.
	Purge(ctx context.Context, units [][]byte) error
}

// skipName says which workspace files a forget never reads: the databases
// (done through SQL), an index rebuild a kill left (".index.db.new-…",
// the index's to remove after a day; one left by the forget's own rebuild
// was built from the rewritten files), locks and sockets.
func skipName(name string) bool {
	for _, p := range []string{"state.db", "index.db"} {
		if name == p || strings.HasPrefix(name, p+"-") || strings.HasPrefix(name, "."+p+".new-") {
			return true
		}
	}
	return strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, ".sock")
}

// Find plans forgetting phrase: every workspace file, notes folder, row of
// state.db and chunk of index.db that holds it. Nothing is written.
func Find(ctx context.Context, home string, db *sql.DB, ix Index, phrase string) (*Plan, error) {
	return FindProgress(ctx, home, db, ix, phrase, nil)
}

// FindProgress is Find telling progress how many of the workspace's files
// it has read (done of total), for a progress line; an ended ctx stops it
// between two files.
func FindProgress(ctx context.Context, home string, db *sql.DB, ix Index, phrase string, progress func(done, total int)) (*Plan, error) {
	if strings.TrimSpace(phrase) == "" {
		return nil, fmt.Errorf("nothing to forget: %w", ErrInvalid)
	}
	if strings.ContainsAny(phrase, "\r\n") {
		return nil, fmt.Errorf("a phrase is one line (forget each line apart): %w", ErrInvalid)
	}
	if !utf8.ValidString(phrase) {
		return nil, fmt.Errorf("the phrase is not valid UTF-8: %w", ErrInvalid)
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(phrase)); n < forgotten.MinRunes {
		return nil, fmt.Errorf("a phrase to forget is at least %d characters: a shorter one is inside too many words (\"the\" is in \"rather\") to take it out of them: %w",
			forgotten.MinRunes, ErrInvalid)
	}
	if !strings.ContainsFunc(phrase, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return nil, fmt.Errorf("a phrase to forget holds a letter or a digit (marks alone are the files' structure): %w", ErrInvalid)
	}
	if contains(Marker, phrase) {
		return nil, fmt.Errorf("%q is part of the marker %s that forget leaves: %w", phrase, Marker, ErrInvalid)
	}
	p := &Plan{phrase: phrase, find: phraseFinder(phrase), progress: progress}
	if err := p.findAll(ctx, home, db, ix); err != nil {
		return nil, err
	}
	return p, nil
}

// findAll fills the plan with every place p.find finds something.
func (p *Plan) findAll(ctx context.Context, home string, db *sql.DB, ix Index) error {
	if err := p.findFiles(ctx, home); err != nil {
		return err
	}
	if err := p.findNotes(home); err != nil {
		return err
	}
	if err := p.findRows(ctx, db); err != nil {
		return err
	}
	p.markDigests(home)
	if ix != nil {
		n, units, err := ix.Matching(ctx, func(s string) bool { return len(p.find(s)) > 0 })
		if err != nil {
			return err
		}
		if n > 0 {
			p.indexHas, p.units = true, units
			p.Places = append(p.Places, Place{Kind: "index", Path: "index.db", Count: n})
		}
	}
	return nil
}

// findFiles plans the rewrite of every text file of the workspace holding
// the phrase, line by line.
func (p *Plan) findFiles(ctx context.Context, home string) error {
	var paths, rels []string
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == RecoveryDir {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !skipName(rel) {
			paths, rels = append(paths, path), append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Reading every file is what takes long on a big workspace: a
	// progress step per file, and Ctrl-C stops between two.
	for i := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.step(i, len(paths))
		if err := p.findFile(paths[i], rels[i]); err != nil {
			return err
		}
	}
	p.step(len(paths), len(paths))
	return nil
}

// step reports progress, if anyone asked for it.
func (p *Plan) step(done, total int) {
	if p.progress != nil {
		p.progress(done, total)
	}
}

// findFile plans the rewrite of one file (path, rel to the workspace).
func (p *Plan) findFile(path, rel string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("forget: read %s: %w", rel, err)
	}
	// A name can hold it too (an imported conversation's file is
	// named after its title): the file is renamed, the phrase in its
	// name replaced as in any text, so state.db's record of the path
	// (replaced the same way) still names it.
	if isJournal(rel) {
		return p.findJournal(rel, data)
	}
	to, inName := replaceFound(rel, p.find)
	if inName > 0 && namedByProgram(rel) {
		// logs/DATE.md, SOUL.md, a journal: the program finds these by
		// their names, which hold no one's words (a forget of "2026"
		// must not rename a year of logs).
		to, inName = rel, 0
	}
	if inName > 0 {
		p.Places = append(p.Places, Place{Kind: "file", Path: rel, Count: inName, Note: "its name holds it: renamed " + to})
	}
	if !utf8.Valid(data) {
		if p.phrase != "" && bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(p.phrase))) {
			p.Kept++
			p.Places = append(p.Places, Place{Kind: "file", Path: rel, Count: 1, Note: "not text: left as it is"})
		}
		if inName > 0 {
			p.files = append(p.files, fileEdit{rel: rel, to: to, old: data, new: data})
		}
		return nil
	}
	if len(p.find(string(data))) == 0 {
		if inName > 0 {
			p.files = append(p.files, fileEdit{rel: rel, to: to, old: data, new: data})
		}
		return nil
	}
	e := fileEdit{rel: rel, to: to, old: data}
	var out strings.Builder
	for i, line := range splitKeep(string(data)) {
		nl, n := replaceFound(line, p.find)
		if n > 0 && namedByProgram(rel) && strings.HasPrefix(line, "#") {
			// A heading of a file the program writes (a log's day, a
			// turn's time and session, a section of SOUL.md) is its
			// structure, read back by its words.
			out.WriteString(line)
			p.Kept++
			pl := Place{Kind: "file", Path: rel, Line: i + 1, Count: n, Note: "a heading the program reads: left as it is"}
			pl.show(line, p.find)
			p.Places = append(p.Places, pl)
			continue
		}
		out.WriteString(nl)
		if n == 0 {
			continue
		}
		e.changed = append(e.changed, i+1)
		pl := Place{Kind: "file", Path: rel, Line: i + 1, Count: n}
		pl.show(line, p.find)
		if onlyMarkers(strings.TrimLeft(strings.TrimSpace(nl), "-*#> ")) {
			// Kept, not removed: the line numbers after it stay, which
			// digests and stored recall cite (docs/decisions-forget.md).
			pl.Note = "nothing else left on the line: it stays as " + strings.TrimRight(nl, "\r\n")
		}
		p.Places = append(p.Places, pl)
	}
	e.new = []byte(out.String())
	if len(e.changed) == 0 {
		if inName > 0 {
			e.new = data
			p.files = append(p.files, e)
		}
		return nil
	}
	if onlyMarkers(out.String()) {
		p.Places[len(p.Places)-1].Note = "nothing else left in the file"
	}
	p.files = append(p.files, e)
	return nil
}

// namedByProgram says whether a workspace file's name is one the program
// gives and finds it by: the top folder's files, the logs, digests,
// journals and skills. A name elsewhere (an imported conversation's file,
// named after its title) may hold the user's words.
func namedByProgram(rel string) bool {
	dir, _, ok := strings.Cut(rel, "/")
	return !ok || dir == "logs" || dir == "digests" || dir == "sync" || dir == "skills"
}

// splitKeep splits s into lines, each keeping its line ending.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// findNotes lists the notes folders' files holding the phrase: they are
// the user's own, so they are reported and never written. They are the
// files the index reads (index.Notes: followed links included, hidden names
// left out), so every note a search could show is looked at; one that
// cannot be read is listed as such, not passed over.
func (p *Plan) findNotes(home string) error {
	srcs, err := memory.LoadSources(home)
	if err != nil || len(srcs) == 0 {
		return err
	}
	notes, err := index.Notes(home)
	if err != nil {
		return err
	}
	for _, nf := range notes {
		if !slices.ContainsFunc(srcs, func(s memory.Source) bool { return strings.HasPrefix(nf.Rel, s.Name+":") }) {
			continue // the workspace's own files are found and rewritten with the rest
		}
		f, err := os.Open(nf.Path)
		if err != nil {
			p.Places = append(p.Places, Place{Kind: "notes", Path: nf.Rel, Note: "could not be read: look in it yourself"})
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for n := 1; sc.Scan(); n++ {
			if c := len(p.find(sc.Text())); c > 0 {
				p.Kept++
				pl := Place{Kind: "notes", Path: nf.Rel, Line: n, Count: c,
					Note: "your notes folder: never written by agent; edit it yourself"}
				pl.show(sc.Text(), p.find)
				p.Places = append(p.Places, pl)
			}
		}
		f.Close()
	}
	return nil
}

// findRows plans the change of every text value in state.db holding the
// phrase: every table, every column, so a place added later (a new table)
// is covered without this package knowing it.
func (p *Plan) findRows(ctx context.Context, db *sql.DB) error {
	tables, err := textColumns(ctx, db)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(tables))
	for t := range tables {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		for _, col := range tables[t] {
			if err := p.findColumn(ctx, db, t, col.name, col.fixed); err != nil {
				return err
			}
		}
	}
	return nil
}

// column is a text column of state.db; fixed says the program relies on
// its values as they are: an id, a name or a key under an index (a primary
// key, UNIQUE), or a value a CHECK constraint limits (a status, a role). A
// forget leaves those (and times) as they are and says so: replaced, they
// would break a constraint (and with it every command after) or the rows
// that refer to them.
type column struct {
	name  string
	fixed bool
}

// textColumns lists the text columns of state.db's rowid tables, the
// package's own table and the migration record aside.
func textColumns(ctx context.Context, db *sql.DB) (map[string][]column, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'forgotten') AND sql NOT LIKE '%WITHOUT ROWID%'`)
	if err != nil {
		return nil, fmt.Errorf("forget: list state.db's tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := map[string][]column{}
	for _, t := range tables {
		fixed, err := fixedColumns(ctx, db, t)
		if err != nil {
			return nil, err
		}
		cols, err := db.QueryContext(ctx, `SELECT name, type FROM pragma_table_info(?1)`, t)
		if err != nil {
			return nil, err
		}
		for cols.Next() {
			var name, typ string
			if err := cols.Scan(&name, &typ); err != nil {
				cols.Close()
				return nil, err
			}
			if typ == "TEXT" || typ == "" || typ == "ANY" {
				out[t] = append(out[t], column{name: name, fixed: fixed[name]})
			}
		}
		cols.Close()
		if err := cols.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fixedColumns are the columns of table under an index or named in a
// CHECK constraint of its definition.
func fixedColumns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	out := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT ii.name FROM pragma_index_list(?1) il, pragma_index_info(il.name) ii WHERE ii.name IS NOT NULL`, table)
	if err != nil {
		return nil, fmt.Errorf("forget: list the indexes of %s: %w", table, err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		out[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var def string
	if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1`, table).Scan(&def); err != nil {
		return nil, fmt.Errorf("forget: read the definition of %s: %w", table, err)
	}
	upper := strings.ToUpper(def)
	for i := strings.Index(upper, "CHECK"); i >= 0; {
		expr := balanced(def[i+len("CHECK"):])
		for _, w := range strings.FieldsFunc(expr, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
			out[w] = true
		}
		next := strings.Index(upper[i+len("CHECK"):], "CHECK")
		if next < 0 {
			break
		}
		i += len("CHECK") + next
	}
	return out, nil
}

// balanced is the parenthesised expression s starts with (after blanks).
func balanced(s string) string {
	depth, start := 0, -1
	for i, r := range s {
		switch r {
		case '(':
			if depth == 0 {
				start = i
			}
			depth++
		case ')':
			depth--
			if depth == 0 && start >= 0 {
				return s[start : i+1]
			}
		}
	}
	return ""
}

func (p *Plan) findColumn(ctx context.Context, db *sql.DB, table, col string, fixed bool) error {
	q := fmt.Sprintf(`SELECT rowid, %s FROM %s WHERE typeof(%[1]s) = 'text'`, quoteIdent(col), quoteIdent(table))
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("forget: read %s.%s: %w", table, col, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		nv, n := replaceFound(v, p.find)
		if n == 0 {
			continue
		}
		if fixed || isTime(v) {
			p.Kept++
			pl := Place{Kind: "state", Table: table, Column: col, Row: id, Count: n,
				Note: "an id, name, time or status the program relies on: left as it is"}
			pl.show(v, p.find)
			p.Places = append(p.Places, pl)
			continue
		}
		e := rowEdit{table: table, column: col, rowid: id, old: v, value: nv, rehash: table == "revisions" && col == "content", recallAt: -1}
		if table == "messages" && col == "context" {
			if err := e.splitAtRecall(ctx, db, p.phrase); err != nil {
				return err
			}
		}
		p.rows = append(p.rows, e)
		pl := Place{Kind: "state", Table: table, Column: col, Row: id, Count: n}
		pl.show(v, p.find)
		if onlyMarkers(nv) {
			pl.Note = "nothing else left in it"
		}
		p.Places = append(p.Places, pl)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return p.describeRows(ctx, db, table)
}

// splitAtRecall replaces the phrase in a message's context on each side of
// where its recalled passages begin, and moves that point by what the
// replacement changed before it, so that a fold still cuts there.
func (e *rowEdit) splitAtRecall(ctx context.Context, db *sql.DB, phrase string) error {
	var at int
	if err := db.QueryRowContext(ctx, `SELECT recall_at FROM messages WHERE rowid = ?1`, e.rowid).Scan(&at); err != nil {
		return fmt.Errorf("forget: read messages.recall_at: %w", err)
	}
	if at <= 0 || at > len(e.old) {
		return nil
	}
	note, _ := replace(e.old[:at], phrase)
	passages, _ := replace(e.old[at:], phrase)
	e.value, e.recallAt = note+passages, len(note)
	return nil
}

// describeRows names the places found in table the way a person knows
// them: a message by its session and turn, a revision by its file.
func (p *Plan) describeRows(ctx context.Context, db *sql.DB, table string) error {
	for i := range p.Places {
		pl := &p.Places[i]
		if pl.Kind != "state" || pl.Table != table || pl.Session != "" || pl.Path != "" {
			continue
		}
		switch table {
		case "messages":
			pl.Kind = "session"
			err := db.QueryRowContext(ctx, `SELECT s.name, (SELECT count(*) FROM messages u
				WHERE u.session_id = m.session_id AND u.role = 'user' AND u.id <= m.id)
				FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id = ?1`, pl.Row).Scan(&pl.Session, &pl.Turn)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		case "sessions":
			pl.Kind = "session"
			if err := db.QueryRowContext(ctx, `SELECT name FROM sessions WHERE rowid = ?1`, pl.Row).Scan(&pl.Session); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		case "session_summaries":
			pl.Kind = "session"
			if err := db.QueryRowContext(ctx, `SELECT s.name FROM session_summaries m JOIN sessions s ON s.id = m.session_id WHERE m.rowid = ?1`, pl.Row).Scan(&pl.Session); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		case "revisions":
			pl.Kind = "revision"
			var kind, name string
			var id int64
			if err := db.QueryRowContext(ctx, `SELECT kind, name, id FROM revisions WHERE rowid = ?1`, pl.Row).Scan(&kind, &name, &id); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			switch kind {
			case "soul":
				pl.Path = "SOUL.md"
			case "memory":
				pl.Path = "MEMORY.md"
			case "skill":
				pl.Path = "skills/" + name + "/SKILL.md"
			default:
				pl.Path = kind + " " + name
			}
			pl.Note = fmt.Sprintf("revision %d", id)
		}
	}
	return nil
}

// isTime says whether a stored value is a time (RFC 3339), which the
// program reads back as one.
func isTime(v string) bool {
	_, err := time.Parse(time.RFC3339Nano, v)
	return err == nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
