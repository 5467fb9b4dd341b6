package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"agent/memory"
	"agent/memory/confined"
	"agent/memory/errkind"
)

// Sentinel errors the CLI maps to exit codes.
var (
	ErrNotFound = errkind.NotFound()
	ErrInvalid  = errkind.Invalid()
)

// Options tunes Import.
type Options struct {
	Source   string         // the file imported, as the user named it
	DryRun   bool           // plan only: nothing is written
	Location *time.Location // the user's zone, for dates and file names
	Now      time.Time
	// Forgotten, when set, says whether a text holds a phrase the user
	// told agent to forget (core/forget's Forgotten.Holds): such a
	// message is not imported, and is counted in Result.Forgotten.
	Forgotten func(text string) bool
	// Progress, when set, is told after each file is staged (done of
	// total), for a progress line on a terminal.
	Progress func(done, total int)

	faults faults // none but in tests
}

// faults are the points where a test makes an import fail or stop as a
// crash would, passed in with its Options rather than set in package
// variables; the zero value is none. stage fails the import after the i-th
// file is staged; afterCommit stops it recorded but not yet in place;
// beforeUnstage stops placement as a kill would, file i linked into place
// and still staged.
type faults struct {
	stage         func(i int) error
	afterCommit   func() bool
	beforeUnstage func(i int) bool
}

// errCrashed is what a fault that stops an import as a crash returns.
var errCrashed = errors.New("crashed (test)")

// Planned is one file an import writes (or would write).
type Planned struct {
	Path           string `json:"path"`
	ConversationID string `json:"conversation_id"`
	Title          string `json:"title"`
	Messages       int    `json:"messages"`
	Continued      bool   `json:"continued"` // new messages of a conversation imported before
	conv           *Conversation
	msgs           []Message // rendered only when written: an import holds words, not files
	part           int
}

// Result says what an import wrote, or would write.
type Result struct {
	ID         int64     `json:"id"` // 0 for a dry run or when nothing was new
	Origin     string    `json:"origin"`
	Files      []Planned `json:"files"`
	Messages   int       `json:"messages"`
	Already    int       `json:"already_imported"`    // conversations with nothing new
	Skipped    int       `json:"skipped"`             // conversations with no text
	Forgotten  int       `json:"forgotten,omitempty"` // messages left out: they hold a forgotten phrase
	DryRun     bool      `json:"dry_run"`
	InKept     []string  `json:"in_kept_files"` // files an undo kept (edited) that hold conversations not written again
	Unreadable []Problem `json:"unreadable"`    // conversations that could not be read, each skipped by itself
	Notes      []Problem `json:"notes"`         // conversations read, with something to say (a loop in a tree…)
	Counts     Counts    `json:"kinds"`         // the export's messages and their parts, by kind
}

// StagingPrefix names an import's files before they are in place: hidden, so
// the index does not read them; recover finishes or discards them.
const StagingPrefix = ".import-"

// Import writes p's new conversations, and the new messages of those
// imported before, as files under imports/, all or nothing: they are
// written to a hidden staging folder, recorded in state.db, and only then
// moved into place (a crash in between is finished by the next import,
// list or undo). Nothing is ever overwritten; MEMORY.md is not touched.
func Import(ctx context.Context, db *sql.DB, home string, p Parsed, opt Options) (Result, error) {
	res := Result{Origin: p.Origin, Skipped: p.Skipped, DryRun: opt.DryRun, InKept: []string{},
		Unreadable: nonNil(p.Unreadable), Notes: nonNil(p.Notes), Counts: p.Counts}
	if res.Counts.Text == nil {
		res.Counts = newCounts()
	}
	if opt.Location == nil {
		opt.Location = time.Local
	}
	if !opt.DryRun {
		unlock, err := memory.Lock(home)
		if err != nil {
			return res, err
		}
		defer unlock()
		if err := recoverStaged(ctx, db, home); err != nil {
			return res, err
		}
	}
	known, err := knownMessages(ctx, db, home, p.Origin)
	if err != nil {
		return res, err
	}
	taken := map[string]bool{}
	for i := range p.Conversations {
		c := &p.Conversations[i]
		k := known[c.ID]
		fresh := k.fresh(c.Messages)
		if opt.Forgotten != nil {
			titleGone := opt.Forgotten(c.Title) // once a conversation, not once a message
			n := len(fresh)
			fresh = slices.DeleteFunc(fresh, func(m Message) bool { return titleGone || opt.Forgotten(m.Text) })
			res.Forgotten += n - len(fresh)
			if n > 0 && len(fresh) == 0 {
				continue // left out for what it holds, not already imported
			}
		}
		if len(fresh) == 0 {
			res.Already++
			res.InKept = append(res.InKept, k.kept...)
			continue
		}
		// part numbers the continuations, in the heading and the name; a
		// name taken by a file not of this import's making gets a suffix.
		part := k.parts + 1
		rel := fileName(c, part, opt.Location)
		for n := 2; exists(home, rel) || taken[rel]; n++ {
			rel = strings.TrimSuffix(fileName(c, part, opt.Location), ".md") + "-" + strconv.Itoa(n) + ".md"
		}
		taken[rel] = true
		res.Files = append(res.Files, Planned{Path: rel, ConversationID: c.ID, Title: c.Title, Messages: len(fresh),
			Continued: k.parts > 0, conv: c, msgs: fresh, part: part})
		res.Messages += len(fresh)
	}
	if opt.DryRun || len(res.Files) == 0 {
		return res, nil
	}
	res.ID, err = write(ctx, db, home, &res, opt)
	return res, err
}

func exists(home, rel string) bool {
	_, err := os.Lstat(home + "/" + rel)
	return err == nil
}

// known is what earlier imports wrote of one conversation and is still
// there: the files of imports not undone, and the files an undo kept
// because the user had edited them (theirs now, and holding those words).
type known struct {
	ids   map[string]bool
	parts int
	kept  []string // kept files among them
}

// fresh is the messages of a conversation no import wrote before. This is
// the one place each message is let in or not: a later filter (words the
// user asked to forget) belongs here.
func (k known) fresh(msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		if !k.ids[m.ID] {
			out = append(out, m)
		}
	}
	return out
}

func knownMessages(ctx context.Context, db *sql.DB, home, origin string) (map[string]known, error) {
	rows, err := db.QueryContext(ctx, `SELECT i.conversation_id, i.message_ids, i.path, i.kept FROM import_items i
		JOIN imports m ON m.id = i.import_id WHERE i.origin = ? AND (m.undone_at IS NULL OR i.kept)`, origin)
	if err != nil {
		return nil, fmt.Errorf("read imports: %w", err)
	}
	defer rows.Close()
	out := map[string]known{}
	for rows.Next() {
		var conv, ids, rel string
		var kept bool
		if err := rows.Scan(&conv, &ids, &rel, &kept); err != nil {
			return nil, fmt.Errorf("read imports: %w", err)
		}
		if kept && !exists(home, rel) {
			continue // the user deleted it since: its words may come again
		}
		k := out[conv]
		if k.ids == nil {
			k.ids = map[string]bool{}
		}
		for _, id := range strings.Split(ids, "\n") {
			k.ids[id] = true
		}
		k.parts++
		if kept {
			k.kept = append(k.kept, rel)
		}
		out[conv] = k
	}
	return out, rows.Err()
}

// write stages the files, records them and moves them into place.
func write(ctx context.Context, db *sql.DB, home string, res *Result, opt Options) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	defer tx.Rollback()
	r, err := tx.ExecContext(ctx, `INSERT INTO imports (origin, source, at, conversations, messages, skipped) VALUES (?, ?, ?, ?, ?, ?)`,
		res.Origin, opt.Source, opt.Now.UTC().Format(time.RFC3339), len(res.Files), res.Messages, res.Skipped)
	if err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	id, err := r.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	staging := stagingDir(id)
	committed := false
	defer func() {
		if !committed {
			root.RemoveAll(staging)
		}
	}()
	if err := root.MkdirAll(staging, 0o700); err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	for i, f := range res.Files {
		data := render(f.conv, f.msgs, f.part, opt.Location)
		sum := sha256.Sum256(data)
		if _, err := tx.ExecContext(ctx, `INSERT INTO import_items (import_id, origin, conversation_id, path, sha256, message_ids) VALUES (?, ?, ?, ?, ?, ?)`,
			id, res.Origin, f.ConversationID, f.Path, sum[:], messageIDs(f.msgs)); err != nil {
			return 0, fmt.Errorf("import: %w", err)
		}
		if err := confined.CreateSynced(root, path.Join(staging, strconv.Itoa(i)+".md"), data); err != nil {
			return 0, fmt.Errorf("import: stage %s: %w", f.Path, err)
		}
		if opt.faults.stage != nil {
			if err := opt.faults.stage(i); err != nil {
				return 0, err
			}
		}
		if opt.Progress != nil {
			opt.Progress(i+1, len(res.Files))
		}
	}
	if d, err := root.Open(staging); err == nil {
		d.Sync()
		d.Close()
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("import: record: %w", err)
	}
	committed = true
	if opt.faults.afterCommit != nil && opt.faults.afterCommit() {
		return id, errCrashed
	}
	return id, place(ctx, db, root, id, opt.faults)
}

func messageIDs(msgs []Message) string {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	return strings.Join(ids, "\n")
}

// stagingDir is where import id writes its files before they are placed.
func stagingDir(id int64) string {
	return path.Join(memory.ImportsDir, StagingPrefix+strconv.FormatInt(id, 10))
}

// importItem is one file an import wrote, as recorded.
type importItem struct {
	id   int64
	path string
	sum  []byte
}

// importItems reads the files import id wrote, in the order written.
func importItems(ctx context.Context, db *sql.DB, id int64) ([]importItem, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, path, sha256 FROM import_items WHERE import_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var items []importItem
	for rows.Next() {
		var it importItem
		if err := rows.Scan(&it.id, &it.path, &it.sum); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

// place moves the staged files of import id into place by hard link, which
// never replaces a file that is there: a name taken meanwhile gets a
// suffix, and the record follows. A crash may stop it anywhere; run again,
// it finds a name that already links to the staged file (os.SameFile) and
// takes it as placed, so it never places one file twice. The staging
// folder goes last.
func place(ctx context.Context, db *sql.DB, root *os.Root, id int64, f faults) error {
	staging := stagingDir(id)
	items, err := importItems(ctx, db, id)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for i, it := range items {
		src := path.Join(staging, strconv.Itoa(i)+".md")
		staged, err := root.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // placed before a crash
		}
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if err := root.MkdirAll(path.Dir(it.path), 0o700); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		dst := it.path
		for n := 2; ; n++ {
			err := root.Link(src, dst)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("import: place %s: %w", dst, err)
			}
			if there, err := root.Lstat(dst); err == nil && os.SameFile(staged, there) {
				break // linked before a crash
			}
			dst = strings.TrimSuffix(it.path, ".md") + "-" + strconv.Itoa(n) + ".md"
		}
		if dst != it.path {
			if _, err := db.ExecContext(ctx, `UPDATE import_items SET path = ? WHERE id = ?`, dst, it.id); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		}
		if f.beforeUnstage != nil && f.beforeUnstage(i) {
			return errCrashed
		}
		if err := root.Remove(src); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	if d, err := root.Open(memory.ImportsDir); err == nil {
		d.Sync()
		d.Close()
	}
	return root.RemoveAll(staging)
}

// Recover finishes an import a crash interrupted after it was recorded, and
// discards one interrupted before: every staging folder goes. It holds the
// memory lock, as Import and Undo do, so it never mistakes an import under
// way for an abandoned one.
func Recover(ctx context.Context, db *sql.DB, home string) error {
	unlock, err := memory.Lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	return recoverStaged(ctx, db, home)
}

// recoverStaged is Recover; the caller holds the memory lock.
func recoverStaged(ctx context.Context, db *sql.DB, home string) error {
	root, err := os.OpenRoot(home)
	if err != nil {
		return err
	}
	defer root.Close()
	d, err := root.Open(memory.ImportsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, StagingPrefix)
		if !ok {
			continue
		}
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			continue
		}
		var one int
		err = db.QueryRowContext(ctx, `SELECT 1 FROM imports WHERE id = ? AND undone_at IS NULL`, id).Scan(&one)
		switch {
		case err == nil:
			if err := place(ctx, db, root, id, faults{}); err != nil {
				return err
			}
		case errors.Is(err, sql.ErrNoRows):
			// Not recorded: the import never happened.
			if err := root.RemoveAll(path.Join(memory.ImportsDir, n)); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		default:
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}

// Record is one import, for import list.
type Record struct {
	ID            int64      `json:"id"`
	Origin        string     `json:"origin"`
	Source        string     `json:"source"`
	At            time.Time  `json:"at"`
	Conversations int        `json:"conversations"`
	Messages      int        `json:"messages"`
	Skipped       int        `json:"skipped"`
	UndoneAt      *time.Time `json:"undone_at"`
}

// List returns every import, oldest first.
func List(ctx context.Context, db *sql.DB) ([]Record, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, origin, source, at, conversations, messages, skipped, undone_at FROM imports ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read imports: %w", err)
	}
	defer rows.Close()
	out := []Record{}
	for rows.Next() {
		var r Record
		var at string
		var undone sql.NullString
		if err := rows.Scan(&r.ID, &r.Origin, &r.Source, &at, &r.Conversations, &r.Messages, &r.Skipped, &undone); err != nil {
			return nil, fmt.Errorf("read imports: %w", err)
		}
		// Both times are written by Import and Undo; one that does not
		// read is a damaged row, said as such rather than listed as the
		// year 1.
		if r.At, err = time.Parse(time.RFC3339, at); err != nil {
			return nil, fmt.Errorf("read imports: import %d: its time %q is not an RFC 3339 time (state.db damaged?)", r.ID, at)
		}
		if undone.Valid {
			t, err := time.Parse(time.RFC3339, undone.String)
			if err != nil {
				return nil, fmt.Errorf("read imports: import %d: its undo time %q is not an RFC 3339 time (state.db damaged?)", r.ID, undone.String)
			}
			r.UndoneAt = &t
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// UndoResult says what an undo removed and what it left.
type UndoResult struct {
	ID      int64    `json:"id"`
	Removed []string `json:"removed"`
	Edited  []string `json:"kept_edited"` // changed since the import: the user's now
	Gone    []string `json:"gone"`        // already deleted
	// UndoneAt is when an earlier undo undid it (RFC 3339): then this one
	// did nothing, and the lists are empty. An undo is idempotent.
	UndoneAt string `json:"undone_at,omitempty"`
	DryRun   bool   `json:"dry_run,omitempty"` // listed what would go, changed nothing
}

// Undo removes the files import id wrote, each only if it still holds
// exactly the bytes written; a file edited since is kept and reported. The
// import's records go, so a later import may bring its conversations again.
// An import undone before is not an error: the result says when
// (UndoneAt) and nothing changes.
func Undo(ctx context.Context, db *sql.DB, home string, id int64, now time.Time) (UndoResult, error) {
	return undo(ctx, db, home, id, now, false)
}

// UndoDryRun is what Undo would do, file by file, with nothing removed and
// nothing recorded.
func UndoDryRun(ctx context.Context, db *sql.DB, home string, id int64) (UndoResult, error) {
	return undo(ctx, db, home, id, time.Time{}, true)
}

func undo(ctx context.Context, db *sql.DB, home string, id int64, now time.Time, dry bool) (UndoResult, error) {
	res := UndoResult{ID: id, Removed: []string{}, Edited: []string{}, Gone: []string{}, DryRun: dry}
	unlock, err := memory.Lock(home)
	if err != nil {
		return res, err
	}
	defer unlock()
	if err := recoverStaged(ctx, db, home); err != nil {
		return res, err
	}
	var undone sql.NullString
	switch err := db.QueryRowContext(ctx, `SELECT undone_at FROM imports WHERE id = ?`, id).Scan(&undone); {
	case errors.Is(err, sql.ErrNoRows):
		return res, errkind.Errorf(ErrNotFound, "no import %d (agent import list)", id)
	case err != nil:
		return res, fmt.Errorf("read imports: %w", err)
	case undone.Valid:
		res.UndoneAt = undone.String
		return res, nil
	}
	items, err := importItems(ctx, db, id)
	if err != nil {
		return res, fmt.Errorf("read imports: %w", err)
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		return res, err
	}
	defer root.Close()
	for _, it := range items {
		data, err := root.ReadFile(it.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.Gone = append(res.Gone, it.path)
			continue
		case err != nil:
			return res, fmt.Errorf("undo: %w", err)
		}
		if sum := sha256.Sum256(data); !bytes.Equal(sum[:], it.sum) {
			res.Edited = append(res.Edited, it.path)
			continue
		}
		if dry {
			res.Removed = append(res.Removed, it.path)
			continue
		}
		if err := root.Remove(it.path); err != nil {
			return res, fmt.Errorf("undo: %w", err)
		}
		res.Removed = append(res.Removed, it.path)
		// Empty year and origin folders go too; a folder with anything
		// else in it stays (Remove refuses it).
		for dir := path.Dir(it.path); dir != memory.ImportsDir && dir != "."; dir = path.Dir(dir) {
			if root.Remove(dir) != nil {
				break
			}
		}
	}
	if dry {
		return res, nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	defer tx.Rollback()
	// The files kept stay known: they hold those conversations, and a
	// later import of them must not write their words a second time.
	if _, err := tx.ExecContext(ctx, `DELETE FROM import_items WHERE import_id = ? AND path NOT IN (SELECT value FROM json_each(?))`, id, jsonList(res.Edited)); err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE import_items SET kept = 1 WHERE import_id = ?`, id); err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE imports SET undone_at = ? WHERE id = ?`, now.UTC().Format(time.RFC3339), id); err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	return res, tx.Commit()
}

func jsonList(s []string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// nonNil is s, or an empty list for --json.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
