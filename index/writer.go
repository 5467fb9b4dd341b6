package index

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// writer applies read files to the index inside one transaction. Rows go
// out in multi-row INSERTs: a statement execution through database/sql and
// cgo costs about as much as SQLite storing a small row, and a full build
// writes tens of thousands of them.
type writer struct {
	// FTS5 writes its pending terms to disk at every statement that opens a
	// savepoint, and any multi-row statement does; so chunks reach the FTS
	// table in batches (ids pendingFirst..nextChunk-1), not file by file,
	// and the old chunks of changed and removed files leave in batches too.
	pendingFirst int64
	pendingBytes int
	segmented    []byte // JSON array of the pending chunks' ids that have a token form of their own
	forms        []any  // those chunks' id, heading form and text form, in threes (made by the readers: result.forms)
	doomed       []byte // JSON array of [first, last] id ranges to unindex

	chunks *bulk // rows for chunks
	files  *bulk // rows for files (an upsert)

	warn      func(string)
	asked     bool // a reindex was asked for: every problem is warned about
	now       time.Time
	racyAfter int64 // mtimes from here on are too fresh to trust
	racy      bool  // a racy row was written: the next update must look again
	nextFile  int64
	nextChunk int64
	stmts     map[string]*sql.Stmt
	tx        *sql.Tx
}

func newWriter(ctx context.Context, tx *sql.Tx, warn func(string), now time.Time) (*writer, error) {
	w := &writer{warn: warn, now: now, racyAfter: now.Add(-racyWindow).UnixNano(), tx: tx, stmts: map[string]*sql.Stmt{},
		chunks: &bulk{tx: tx, insert: sqlInsertChunks, cols: 8},
		files:  &bulk{tx: tx, insert: sqlUpsertFiles, suffix: sqlUpsertFilesConflict, cols: 9},
	}
	if err := tx.QueryRowContext(ctx, sqlNextIDs).Scan(&w.nextFile, &w.nextChunk); err != nil {
		return nil, err
	}
	w.pendingFirst = w.nextChunk
	for _, q := range []string{sqlTouchFile, sqlDeleteFile, sqlIndexChunks, sqlUnindexRanges, sqlDeleteRanges, sqlSetMeta} {
		s, err := tx.PrepareContext(ctx, q)
		if err != nil {
			w.close()
			return nil, err
		}
		w.stmts[q] = s
	}
	return w, nil
}

func (w *writer) close() {
	for _, s := range w.stmts {
		s.Close()
	}
	w.chunks.close()
	w.files.close()
}

func (w *writer) exec(ctx context.Context, q string, args ...any) error {
	_, err := w.stmts[q].ExecContext(ctx, args...)
	return err
}

// write records one file's result.
func (w *writer) write(ctx context.Context, j *job, r result, st *Stats) error {
	e, old := j.e, j.old
	// Racy only matters for content the index read; a link it did not
	// follow or a file too big to read is judged by its stat alone.
	racy := r.hash != nil && e.mtimeNS >= w.racyAfter
	w.racy = w.racy || racy
	switch {
	case r.err != nil:
		return w.unreadable(ctx, j, r.err, st)
	case r.same:
		st.Unchanged++
		return w.exec(ctx, sqlTouchFile, old.id, e.size, e.mtimeNS, racy)
	}
	w.unindex(old)
	id := w.fileID(old)
	if r.problem != "" {
		if strings.HasSuffix(e.rel, ":") { // a source folder as a whole
			w.warn(fmt.Sprintf("source %s %s", e.rel, r.problem))
		} else {
			w.warn(fmt.Sprintf("skip %s: %s", e.rel, r.problem))
		}
		st.Skipped++
		return w.files.add(ctx, id, e.rel, e.size, e.mtimeNS, r.hash, r.problem, racy, nil, nil)
	}
	for _, f := range r.secrets {
		w.warn(fmt.Sprintf("%s:%d: a secret (%s) is indexed as a marker, never its value; the file is as it was (agent doctor lists them)", e.rel, f.Line, f.Kind))
	}
	if old == nil {
		st.New++
	} else {
		st.Changed++
	}
	var first, last any
	if len(r.chunks) > 0 {
		first, last = w.nextChunk, w.nextChunk+int64(len(r.chunks))-1
		forms := r.forms
		for i, c := range r.chunks {
			if err := w.chunks.add(ctx, w.nextChunk, id, c.StartLine, c.EndLine, c.Heading, c.Date, c.Text, c.By); err != nil {
				return err
			}
			if len(forms) > 0 && forms[0].chunk == i {
				w.segmented = appendID(w.segmented, w.nextChunk)
				w.forms = append(w.forms, w.nextChunk, forms[0].heading, forms[0].text)
				forms = forms[1:]
			}
			w.nextChunk++
			w.pendingBytes += len(c.Text)
		}
	}
	if err := w.files.add(ctx, id, e.rel, e.size, e.mtimeNS, r.hash, nil, racy, first, last); err != nil {
		return err
	}
	if w.pendingBytes >= ftsBatchBytes {
		return w.flush(ctx)
	}
	return nil
}

// unreadable records a file that could not be read (permissions, an I/O
// error) as a problem row marked racy, with the digest left empty: every
// later update reads it again instead of trusting an unchanged stat, and
// status and doctor count it until it reads. Warned about when the error is
// new, or when a reindex was asked for; not on every search.
func (w *writer) unreadable(ctx context.Context, j *job, err error, st *Stats) error {
	e, old := j.e, j.old
	problem := ReadErrorPrefix + errText(err)
	if old == nil || old.problem != problem || w.asked {
		w.warn(fmt.Sprintf("skip %s: %s", e.rel, problem))
	}
	st.Skipped++
	w.racy = true
	w.unindex(old)
	return w.files.add(ctx, w.fileID(old), e.rel, e.size, e.mtimeNS, nil, problem, true, nil, nil)
}

// fileID is the manifest id of a file written now: its old one, or the next.
func (w *writer) fileID(old *manifestRow) int64 {
	if old != nil {
		return old.id
	}
	w.nextFile++
	return w.nextFile - 1
}

// ReadErrorPrefix starts the problem recorded for a file that could not be
// read; such files are retried by every update.
const ReadErrorPrefix = "cannot read: "

// ftsBatchBytes is how much chunk text is written to the chunks table
// before it is indexed in one statement.
const ftsBatchBytes = 4 << 20

// appendID adds id to a JSON array under construction (no closing bracket).
func appendID(list []byte, id int64) []byte {
	if len(list) == 0 {
		list = append(list, '[')
	} else {
		list = append(list, ',')
	}
	return strconv.AppendInt(list, id, 10)
}

// unindex schedules a file's old chunks for removal at the next flush.
func (w *writer) unindex(old *manifestRow) {
	if old == nil || !old.first.Valid {
		return
	}
	if len(w.doomed) == 0 {
		w.doomed = append(w.doomed, '[')
	} else {
		w.doomed = append(w.doomed, ',')
	}
	w.doomed = fmt.Appendf(w.doomed, "[%d,%d]", old.first.Int64, old.last.Int64)
}

// flush applies the pending removals and indexes the pending chunks.
func (w *writer) flush(ctx context.Context) error {
	if err := w.chunks.flush(ctx); err != nil {
		return err
	}
	if err := w.files.flush(ctx); err != nil {
		return err
	}
	if len(w.doomed) > 0 {
		ranges := string(append(w.doomed, ']'))
		if err := w.exec(ctx, sqlUnindexRanges, ranges); err != nil {
			return err
		}
		if err := w.exec(ctx, sqlDeleteRanges, ranges); err != nil {
			return err
		}
		w.doomed = w.doomed[:0]
	}
	if w.nextChunk > w.pendingFirst {
		// Most chunks are indexed as they are, read back from chunks in
		// one statement; those with a run to split are given their token
		// form, made in Go when they were written. (Made by an SQL function
		// on the way in, fts_form, its calls through cgo cost a full build
		// of mixed-language notes a tenth of its time.)
		segmented := "[]"
		if len(w.segmented) > 0 {
			segmented = string(append(w.segmented, ']'))
		}
		if err := w.exec(ctx, sqlIndexChunks, w.pendingFirst, w.nextChunk-1, segmented); err != nil {
			return err
		}
		if err := w.indexForms(ctx); err != nil {
			return err
		}
		w.pendingFirst = w.nextChunk
		w.segmented = w.segmented[:0]
	}
	w.pendingBytes = 0
	return nil
}

// formRows is how many token forms one INSERT carries: FTS5 writes its
// pending terms out at every multi-row statement, so a batch's forms go
// in as few statements as SQLite's 32,766 parameters allow.
const formRows = 8192

// indexForms writes the pending token forms to the FTS table.
func (w *writer) indexForms(ctx context.Context) error {
	for i := 0; i < len(w.forms); i += 3 * formRows {
		part := w.forms[i:min(len(w.forms), i+3*formRows)]
		q := sqlIndexForms + strings.Repeat("(?,?,?),", len(part)/3-1) + "(?,?,?)"
		if _, err := w.tx.ExecContext(ctx, q, part...); err != nil {
			return err
		}
	}
	clear(w.forms) // let the texts go
	w.forms = w.forms[:0]
	return nil
}

// remove forgets a file entirely.
func (w *writer) remove(ctx context.Context, old *manifestRow) error {
	w.unindex(old)
	if err := w.files.flush(ctx); err != nil { // a pending upsert of the same row must not follow the delete
		return err
	}
	return w.exec(ctx, sqlDeleteFile, old.id)
}

// finish stores the totals and the walk's digest. After a racy row the
// digest is left empty, so the next update compares file by file and
// re-hashes that file.
func (w *writer) finish(ctx context.Context, sum digest, st *Stats) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := w.tx.QueryRowContext(ctx, sqlTotals).Scan(&st.Files, &st.Bytes, &st.Chunks); err != nil {
		return err
	}
	d := sum.bytes()
	if w.racy {
		d = []byte{}
	}
	for _, kv := range []struct {
		k string
		v any
	}{
		{"digest", d},
		{"files", st.Files},
		{"chunks", st.Chunks},
		{"bytes", st.Bytes},
		{"last_reindex", w.now.UnixNano()},
	} {
		if err := w.exec(ctx, sqlSetMeta, kv.k, kv.v); err != nil {
			return err
		}
	}
	return nil
}

// bulkRows is how many rows one multi-row INSERT carries.
const bulkRows = 64

// bulk collects rows for one table and writes them bulkRows at a time with
// one prepared statement; the remainder goes out in a statement of its size.
type bulk struct {
	tx     *sql.Tx
	insert string // "INSERT INTO t(cols) VALUES "
	suffix string // after the values, e.g. an ON CONFLICT clause
	cols   int
	args   []any
	full   *sql.Stmt
}

func (b *bulk) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < b.cols*bulkRows {
		return nil
	}
	if b.full == nil {
		s, err := b.tx.PrepareContext(ctx, b.sql(bulkRows))
		if err != nil {
			return err
		}
		b.full = s
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

func (b *bulk) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.sql(len(b.args)/b.cols), b.args...)
	b.args = b.args[:0]
	return err
}

func (b *bulk) sql(rows int) string {
	row := "(" + strings.Repeat("?,", b.cols-1) + "?)"
	return b.insert + strings.Repeat(row+",", rows-1) + row + b.suffix
}

func (b *bulk) close() {
	if b.full != nil {
		b.full.Close()
	}
}
