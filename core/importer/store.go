package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"agent/memory"
	"agent/memory/confined"
)

// Sentinel errors the CLI maps to exit codes.
var (
	ErrNotFound = errors.New("not found")
	ErrInvalid  = errors.New("invalid")
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
}

// Planned is one file an import writes (or would write).
type Planned struct {
	Path           string `json:"path"`
	ConversationID string `json:"conversation_id"`
	Title          string `json:"title"`
	Messages       int    `json:"messages"`
	Continued      bool   `json:"continued"` // new messages of a conversation imported before
	data           []byte
	ids            []string
}

// Result says what an import wrote, or would write.
type Result struct {
	ID        int64     `json:"id"` // 0 for a dry run or when nothing was new
	Origin    string    `json:"origin"`
	Files     []Planned `json:"files"`
	Messages  int       `json:"messages"`
	Already   int       `json:"already_imported"`    // conversations with nothing new
	Skipped   int       `json:"skipped"`             // conversations with no text
	Forgotten int       `json:"forgotten,omitempty"` // messages left out: they hold a forgotten phrase
	DryRun    bool      `json:"dry_run"`
}

// stagingPrefix names an import's files before they are in place: hidden, so
// the index does not read them; recover finishes or discards them.
const stagingPrefix = ".import-"

// Import writes p's new conversations, and the new messages of those
// imported before, as files under imports/, all or nothing: they are
// written to a hidden staging folder, recorded in state.db, and only then
// moved into place (a crash in between is finished by the next import,
// list or undo). Nothing is ever overwritten; MEMORY.md is not touched.
func Import(ctx context.Context, db *sql.DB, home string, p Parsed, opt Options) (Result, error) {
	res := Result{Origin: p.Origin, Skipped: p.Skipped, DryRun: opt.DryRun}
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
	known, err := knownMessages(ctx, db, p.Origin)
	if err != nil {
		return res, err
	}
	taken := map[string]bool{}
	for _, c := range p.Conversations {
		k := known[c.ID]
		var fresh []Message
		var ids []string
		for _, m := range c.Messages {
			if opt.Forgotten != nil && !k.ids[m.ID] && (opt.Forgotten(m.Text) || opt.Forgotten(c.Title)) {
				res.Forgotten++
				continue
			}
			if !k.ids[m.ID] {
				fresh = append(fresh, m)
				ids = append(ids, m.ID)
			}
		}
		if len(fresh) == 0 {
			res.Already++
			continue
		}
		// part numbers the continuations in the heading; the file name's
		// number may run ahead of it when a name is taken (a file kept by
		// an undo because the user edited it).
		part := k.parts + 1
		n := part
		rel := fileName(&c, n, opt.Location)
		for exists(home, rel) || taken[rel] {
			n++
			rel = fileName(&c, n, opt.Location)
		}
		taken[rel] = true
		res.Files = append(res.Files, Planned{Path: rel, ConversationID: c.ID, Title: c.Title, Messages: len(fresh),
			Continued: k.parts > 0, data: render(&c, fresh, part, opt.Location), ids: ids})
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

// known is what earlier imports (not undone) wrote of one conversation.
type known struct {
	ids   map[string]bool
	parts int
}

func knownMessages(ctx context.Context, db *sql.DB, origin string) (map[string]known, error) {
	rows, err := db.QueryContext(ctx, `SELECT i.conversation_id, i.message_ids FROM import_items i
		JOIN imports m ON m.id = i.import_id WHERE i.origin = ? AND m.undone_at IS NULL`, origin)
	if err != nil {
		return nil, fmt.Errorf("read imports: %w", err)
	}
	defer rows.Close()
	out := map[string]known{}
	for rows.Next() {
		var conv, ids string
		if err := rows.Scan(&conv, &ids); err != nil {
			return nil, fmt.Errorf("read imports: %w", err)
		}
		k := out[conv]
		if k.ids == nil {
			k.ids = map[string]bool{}
		}
		for _, id := range strings.Split(ids, "\n") {
			k.ids[id] = true
		}
		k.parts++
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
		sum := sha256.Sum256(f.data)
		if _, err := tx.ExecContext(ctx, `INSERT INTO import_items (import_id, origin, conversation_id, path, sha256, message_ids) VALUES (?, ?, ?, ?, ?, ?)`,
			id, res.Origin, f.ConversationID, f.Path, sum[:], strings.Join(f.ids, "\n")); err != nil {
			return 0, fmt.Errorf("import: %w", err)
		}
		if err := confined.CreateSynced(root, path.Join(staging, strconv.Itoa(i)+".md"), f.data); err != nil {
			return 0, fmt.Errorf("import: stage %s: %w", f.Path, err)
		}
		if failStage != nil {
			if err := failStage(i); err != nil {
				return 0, err
			}
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
	if crashAfterCommit != nil && crashAfterCommit() {
		return id, errCrashed
	}
	return id, place(ctx, db, root, id)
}

// Fault injection, set only by tests: failStage fails the import after the
// i-th file is staged; crashAfterCommit stops it as a crash would, recorded
// but not yet in place.
var (
	failStage        func(i int) error
	crashAfterCommit func() bool
	errCrashed       = errors.New("crashed (test)")
)

// stagingDir is where import id writes its files before they are placed.
func stagingDir(id int64) string {
	return path.Join(memory.ImportsDir, stagingPrefix+strconv.FormatInt(id, 10))
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
// suffix, and the record follows. The staging folder goes last.
func place(ctx context.Context, db *sql.DB, root *os.Root, id int64) error {
	staging := stagingDir(id)
	items, err := importItems(ctx, db, id)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for i, it := range items {
		src := path.Join(staging, strconv.Itoa(i)+".md")
		if _, err := root.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue // placed before a crash
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
			dst = strings.TrimSuffix(it.path, ".md") + "-" + strconv.Itoa(n) + ".md"
		}
		if dst != it.path {
			if _, err := db.ExecContext(ctx, `UPDATE import_items SET path = ? WHERE id = ?`, dst, it.id); err != nil {
				return fmt.Errorf("import: %w", err)
			}
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
		rest, ok := strings.CutPrefix(n, stagingPrefix)
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
			if err := place(ctx, db, root, id); err != nil {
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
		r.At, _ = time.Parse(time.RFC3339, at)
		if undone.Valid {
			t, _ := time.Parse(time.RFC3339, undone.String)
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
}

// Undo removes the files import id wrote, each only if it still holds
// exactly the bytes written; a file edited since is kept and reported. The
// import's records go, so a later import may bring its conversations again.
func Undo(ctx context.Context, db *sql.DB, home string, id int64, now time.Time) (UndoResult, error) {
	res := UndoResult{ID: id, Removed: []string{}, Edited: []string{}, Gone: []string{}}
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
		return res, errorf(ErrNotFound, "no import %d (agent import list)", id)
	case err != nil:
		return res, fmt.Errorf("read imports: %w", err)
	case undone.Valid:
		return res, errorf(ErrInvalid, "import %d was undone at %s", id, undone.String)
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
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM import_items WHERE import_id = ?`, id); err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE imports SET undone_at = ? WHERE id = ?`, now.UTC().Format(time.RFC3339), id); err != nil {
		return res, fmt.Errorf("undo: %w", err)
	}
	return res, tx.Commit()
}
