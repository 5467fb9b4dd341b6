package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"agent/memory"
)

// TargetChars is the chunk size the index asks the chunker for: the
// chunker's default, chosen by measuring evidence recall on LoCoMo
// (docs/decisions-index.md): small chunks spend little of a reader's context
// budget on text around a match.
const TargetChars = memory.DefaultTargetChars

// MaxFileSize caps what one file may weigh; a bigger file is skipped with a
// warning (it is not a note, and reading it would stall every refresh).
const MaxFileSize = 8 << 20

// racyWindow: a file modified this close to the moment it was indexed may be
// modified again within the same mtime tick without its size changing, so its
// manifest row is marked racy and its content re-hashed by the next update.
const racyWindow = 2 * time.Second

// ReindexOptions tunes Reindex.
type ReindexOptions struct {
	Full     bool                  // rebuild from scratch into a new file
	Progress func(done, total int) // after each file read; total = files to read
}

// Stats says what an update did and what the index holds afterwards.
type Stats struct {
	Full      bool // the index was rebuilt from scratch
	New       int  // files indexed for the first time
	Changed   int  // files whose content changed
	Removed   int  // files gone from the workspace
	Unchanged int  // files left as they were (including touched-but-same)
	Skipped   int  // files not indexed because of a problem, each warned about
	Files     int  // files in the index
	Chunks    int  // chunks in the index
	Bytes     int64
	Duration  time.Duration
}

// Changes is how many files the update touched.
func (s Stats) Changes() int { return s.New + s.Changed + s.Removed }

// Reindex brings the index up to date with the files: incrementally (stat
// walk, then only new or changed files are read) or, with Full, by building
// a new index.db that replaces the old one when complete. Building a missing
// index.db is what a caller of Reindex asked for, so it is not warned about;
// a damaged or foreign one is.
func (ix *Index) Reindex(ctx context.Context, opts ReindexOptions) (Stats, error) {
	ix.asked = true
	defer func() { ix.asked = false }()
	return ix.timedUpdate(ctx, opts, false)
}

// Refresh is the cheap update run before every search and chat turn: a stat
// walk, compared with the last one; only if something changed are the
// changed files read and re-chunked. An index.db that has to be built from
// scratch, even a missing one, is warned about: it costs the caller time it
// did not ask to spend.
func (ix *Index) Refresh(ctx context.Context) (Stats, error) {
	return ix.timedUpdate(ctx, ReindexOptions{}, false)
}

// RefreshChanged is Refresh for a caller that knows files changed (a
// watcher's event, its own write): the quick no-change check, which could
// only say "changed", is skipped.
func (ix *Index) RefreshChanged(ctx context.Context) (Stats, error) {
	return ix.timedUpdate(ctx, ReindexOptions{}, true)
}

func (ix *Index) timedUpdate(ctx context.Context, opts ReindexOptions, changed bool) (Stats, error) {
	start := time.Now()
	release, err := ix.enter(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer release()
	st, err := ix.update(ctx, opts.Full, opts.Progress, changed)
	st.Duration = time.Since(start)
	return st, err
}

// update is Reindex and Refresh; changed skips the quick no-change check.
func (ix *Index) update(ctx context.Context, full bool, progress func(int, int), changed bool) (Stats, error) {
	if err := ix.current(ctx); err != nil {
		return Stats{}, err
	}
	if full || ix.full.needed() {
		switch {
		case !ix.full.needed():
		case ix.db != nil:
			ix.warn(ix.full.why + ": rebuilding it")
		case !ix.asked: // missing
			ix.warn(ix.full.why + ": building it")
		}
		return ix.rebuild(ctx, progress)
	}
	m, err := ix.meta(ctx)
	if isCorrupt(err) {
		ix.markCorrupt(err)
		return ix.update(ctx, true, progress, false)
	}
	if err != nil {
		return Stats{}, err
	}
	if !changed {
		sum, n, why, ok := quickDigestTrust(ix.home)
		if ok {
			ix.vouch.set(why)
		}
		if ok && bytes.Equal(m.digest, sum.bytes()) {
			return Stats{Unchanged: n, Files: m.files, Chunks: m.chunks, Bytes: m.bytes}, nil
		}
	}
	if ix.walkHook != nil {
		ix.walkHook()
	}
	ents, sum, why, err := walkTrust(ix.home)
	if err != nil {
		return Stats{}, fmt.Errorf("reindex %s: %w", ix.home, err)
	}
	ix.vouch.set(why)
	if bytes.Equal(m.digest, sum.bytes()) {
		return Stats{Unchanged: len(ents), Files: m.files, Chunks: m.chunks, Bytes: m.bytes}, nil
	}
	st, err := ix.incremental(ctx, ents, sum, progress)
	if isCorrupt(err) {
		ix.markCorrupt(err)
		return ix.update(ctx, true, progress, false)
	}
	return st, err
}

// metaFacts is the meta table: enough to answer a no-change refresh and the
// status command without scanning anything.
type metaFacts struct {
	digest      []byte
	files       int
	chunks      int
	bytes       int64
	lastReindex time.Time
	embedModel  string // the identity the stored vectors belong to (vectors.go)
}

func (ix *Index) meta(ctx context.Context) (metaFacts, error) {
	var m metaFacts
	rows, err := ix.db.QueryContext(ctx, sqlReadMeta)
	if err != nil {
		return m, fmt.Errorf("read index %s: %w", ix.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v any
		if err := rows.Scan(&k, &v); err != nil {
			return m, fmt.Errorf("read index %s: %w", ix.path, err)
		}
		switch k {
		case "digest":
			m.digest, _ = v.([]byte)
		case "files":
			m.files = int(asInt(v))
		case "chunks":
			m.chunks = int(asInt(v))
		case "bytes":
			m.bytes = asInt(v)
		case "last_reindex":
			m.lastReindex = time.Unix(0, asInt(v))
		case metaEmbedModel:
			m.embedModel = asString(v)
		}
	}
	if err := rows.Err(); err != nil {
		return m, fmt.Errorf("read index %s: %w", ix.path, err)
	}
	return m, nil
}

func asInt(v any) int64 {
	n, _ := v.(int64)
	return n
}

func asString(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	s, _ := v.(string)
	return s
}

// manifestRow is one files row.
type manifestRow struct {
	id          int64
	size        int64
	mtimeNS     int64
	hash        []byte
	problem     string
	racy        bool
	first, last sql.NullInt64
}

// statMatches says whether the walk saw the file with the size and mtime the
// manifest recorded (false for a file the manifest lacks, r == nil).
func (r *manifestRow) statMatches(e *entry) bool {
	return r != nil && r.size == e.size && r.mtimeNS == e.mtimeNS
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func loadManifest(ctx context.Context, q querier) (map[string]*manifestRow, error) {
	rows, err := q.QueryContext(ctx, sqlLoadManifest)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*manifestRow{}
	for rows.Next() {
		var path string
		var problem sql.NullString
		r := &manifestRow{}
		if err := rows.Scan(&r.id, &path, &r.size, &r.mtimeNS, &r.hash, &problem, &r.racy, &r.first, &r.last); err != nil {
			return nil, err
		}
		r.problem = problem.String
		out[path] = r
	}
	return out, rows.Err()
}

// incremental applies the difference between the walk and the manifest in
// one transaction: a crash or an error leaves the previous index intact.
func (ix *Index) incremental(ctx context.Context, ents []entry, sum digest, progress func(int, int)) (Stats, error) {
	tx, err := ix.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one updater at a time
	if err != nil {
		return Stats{}, fmt.Errorf("reindex %s: %w", ix.path, err)
	}
	defer tx.Rollback()
	// Another process may have rebuilt and replaced index.db while we waited
	// for the lock; writing into the replaced file would be lost.
	if fi, err := os.Stat(ix.path); err != nil || inode(fi) != ix.ino {
		tx.Rollback()
		if err := ix.open(ctx); err != nil {
			return Stats{}, err
		}
		return ix.update(ctx, false, progress, false)
	}
	old, err := loadManifest(ctx, tx)
	if err != nil {
		return Stats{}, fmt.Errorf("reindex %s: load manifest: %w", ix.path, err)
	}
	var st Stats
	var jobs []job
	seen := make(map[string]bool, len(ents))
	sort.Slice(ents, func(i, j int) bool { return ents[i].rel < ents[j].rel })
	for i := range ents {
		e := &ents[i]
		seen[e.rel] = true
		r := old[e.rel]
		if r.statMatches(e) && !r.racy && (e.problem == "" || e.problem == r.problem) {
			st.Unchanged++
			continue
		}
		jobs = append(jobs, job{e: e, old: r})
	}
	w, err := newWriter(ctx, tx, ix.warn, time.Now())
	if w != nil {
		w.asked = ix.asked
	}
	if err != nil {
		return Stats{}, fmt.Errorf("reindex %s: %w", ix.path, err)
	}
	defer w.close()
	gone := inGoneSource(ents)
	for rel, r := range old {
		if !seen[rel] && gone(rel) {
			st.Unchanged++ // a gone source's notes stay until it returns
			continue
		}
		if !seen[rel] {
			if err := w.remove(ctx, r); err != nil {
				return Stats{}, fmt.Errorf("reindex %s: remove %s: %w", ix.path, rel, err)
			}
			st.Removed++
		}
	}
	if err := ix.process(ctx, jobs, w, &st, progress); err != nil {
		return Stats{}, err
	}
	if err := w.finish(ctx, sum, &st); err != nil {
		return Stats{}, fmt.Errorf("reindex %s: %w", ix.path, err)
	}
	if err := tx.Commit(); err != nil {
		return Stats{}, fmt.Errorf("reindex %s: commit: %w", ix.path, err)
	}
	return st, nil
}

// rebuild writes a complete new index into a temporary file and renames it
// over index.db: the old index serves searches until the new one is whole,
// and a crash leaves at worst a stray temporary file.
func (ix *Index) rebuild(ctx context.Context, progress func(int, int)) (Stats, error) {
	removeStaleTemps(ix.home)
	ents, sum, err := walk(ix.home)
	if err != nil {
		return Stats{}, fmt.Errorf("reindex %s: %w", ix.home, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].rel < ents[j].rel })
	tmp, err := os.CreateTemp(ix.home, RebuildPrefix+"*")
	if err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	keep := false
	defer func() {
		if !keep {
			os.Remove(tmpPath)
			os.Remove(tmpPath + "-journal")
		}
	}()
	kept, err := ix.keptNotes(ctx, ents)
	if err != nil {
		return Stats{}, err
	}
	st, err := ix.build(ctx, tmpPath, ents, sum, progress, kept)
	if err != nil {
		return Stats{}, err
	}
	ix.carryVectors(ctx, tmpPath)
	if err := syncFile(tmpPath); err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	if err := ix.swap(ctx, tmpPath); err != nil {
		return Stats{}, err
	}
	keep = true
	// Changes applied to the old file while this one was built (a watcher's
	// refresh after an edit) were lost with it; a walk of the files now puts
	// them back before anyone relies on the new file.
	if _, err := ix.update(ctx, false, nil, true); err != nil {
		return Stats{}, err
	}
	return st, nil
}

// RebuildPrefix names rebuilds in progress; hidden so the walk ignores them.
const RebuildPrefix = "." + FileName + ".new-"

// removeStaleTemps deletes rebuilds abandoned by a crash a day or more ago
// (a younger one may belong to a rebuild running in another process).
func removeStaleTemps(home string) {
	old, _ := filepath.Glob(filepath.Join(home, RebuildPrefix+"*"))
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.Remove(p)
		}
	}
}

// keptNote is a note of a source folder that is gone, as the old index
// holds it, for a rebuild to carry over.
type keptNote struct {
	e entry
	r result
}

// keptNotes reads, from the index being replaced, the notes of the source
// folders the walk found gone, so that a full rebuild keeps them searchable
// as an incremental update does. Only a usable old index of this version
// has them; one being rebuilt because it is damaged or another version
// does not.
func (ix *Index) keptNotes(ctx context.Context, ents []entry) ([]keptNote, error) {
	if ix.db == nil || ix.full.needed() {
		return nil, nil
	}
	var out []keptNote
	for i := range ents {
		prefix := ents[i].missingSource()
		if prefix == "" {
			continue
		}
		rows, err := ix.db.QueryContext(ctx, sqlKeptNotes, prefix, strings.TrimSuffix(prefix, ":")+";")
		if err != nil {
			return nil, fmt.Errorf("reindex: keep %s: %w", prefix, err)
		}
		for rows.Next() {
			var path string
			var size, mtime int64
			var hash []byte
			var c memory.Chunk
			if err := rows.Scan(&path, &size, &mtime, &hash, &c.StartLine, &c.EndLine, &c.Heading, &c.Date, &c.Text, &c.By); err != nil {
				rows.Close()
				return nil, fmt.Errorf("reindex: keep %s: %w", prefix, err)
			}
			c.Path = path
			if n := len(out); n == 0 || out[n-1].e.rel != path {
				out = append(out, keptNote{e: entry{rel: path, size: size, mtimeNS: mtime}, r: result{hash: hash}})
			}
			out[len(out)-1].r.chunks = append(out[len(out)-1].r.chunks, c)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("reindex: keep %s: %w", prefix, err)
		}
	}
	for i := range out {
		out[i].r.forms = formsOf(out[i].r.chunks)
	}
	return out, nil
}

func (ix *Index) build(ctx context.Context, path string, ents []entry, sum digest, progress func(int, int), kept []keptNote) (Stats, error) {
	db := openDB(dsn(path, "rw"), buildPragmas)
	defer db.Close()
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		return Stats{}, fmt.Errorf("reindex: create schema: %w", err)
	}
	if _, err := db.ExecContext(ctx, sqlBuildSettings); err != nil {
		return Stats{}, fmt.Errorf("reindex: configure: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx, ix.warn, time.Now())
	if w != nil {
		w.asked = ix.asked
	}
	if err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	defer w.close()
	st := Stats{Full: true}
	jobs := make([]job, len(ents))
	for i := range ents {
		jobs[i] = job{e: &ents[i]}
	}
	if err := ix.process(ctx, jobs, w, &st, progress); err != nil {
		return Stats{}, err
	}
	for i := range kept {
		k := &kept[i]
		if err := w.write(ctx, &job{e: &k.e}, k.r, &st); err != nil {
			return Stats{}, fmt.Errorf("reindex %s: %w", k.e.rel, err)
		}
		st.New-- // carried over, not read
		st.Unchanged++
	}
	if err := w.finish(ctx, sum, &st); err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Stats{}, fmt.Errorf("reindex: commit: %w", err)
	}
	if _, err := db.ExecContext(ctx, sqlFinishBuild); err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, schemaVersion)); err != nil {
		return Stats{}, fmt.Errorf("reindex: %w", err)
	}
	return st, db.Close()
}

// swap renames the new file over index.db while holding the swap lock
// exclusive, so no other operation is under way in any process, and an
// exclusive SQLite lock on the old file, which first rolls back a hot
// journal a crashed writer left (it must not be replayed into the new
// file). Every later operation sees the new inode and reopens. The caller
// holds the swap lock shared, as it does again on a nil return; on an error
// the lock may be lost, and the caller's operation ends with the error.
func (ix *Index) swap(ctx context.Context, tmpPath string) (err error) {
	if err := ix.lock.upgrade(); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	defer func() {
		if derr := ix.lock.downgrade(); derr != nil && err == nil {
			err = fmt.Errorf("reindex: %w", derr)
		}
	}()
	var unlock func()
	if ix.db != nil {
		// Best effort: a corrupt file can be neither locked nor in use.
		conn, err := ix.db.Conn(ctx)
		if err == nil {
			if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err == nil {
				unlock = func() { conn.ExecContext(context.Background(), "ROLLBACK"); conn.Close() }
			} else {
				conn.Close()
			}
		}
	}
	err = os.Rename(tmpPath, ix.path)
	if err == nil {
		err = syncDir(ix.home)
	}
	if unlock != nil {
		unlock()
	}
	if err != nil {
		return fmt.Errorf("reindex: replace %s: %w", ix.path, err)
	}
	return ix.open(ctx)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// job is one file to read; old is its manifest row, nil for a new file.
type job struct {
	e   *entry
	old *manifestRow
}

// maxInflight bounds the bytes of files read but not yet written.
const maxInflight = 2 << 20

// weight is what a job counts against maxInflight.
func (j *job) weight() int64 { return max(j.e.size, 1) }

// result is a file read, checked and chunked, ready for the writer.
type result struct {
	hash    []byte             // nil when the content was not read
	problem string             // not indexable: recorded in the manifest, warned about
	secrets []memory.Redaction // replaced by their markers, warned about
	err     error              // could not be read: recorded as a problem, retried by every update
	same    bool               // content unchanged since indexed: only the stat moved
	chunks  []memory.Chunk
	// forms are the chunks' token forms where they differ from the chunk
	// (a run to split, segment.go), made by the reader on its core rather
	// than by the single writer; nil when no chunk has one.
	forms []chunkForm
}

// chunkForm is what the FTS table indexes for a chunk of r.chunks.
type chunkForm struct {
	chunk         int // its index in chunks
	heading, text string
}

// formsOf returns the token forms of the chunks that hold a run.
func formsOf(chunks []memory.Chunk) []chunkForm {
	var out []chunkForm
	for i, c := range chunks {
		if h, t := tokenForm(c.Heading), tokenForm(c.Text); len(h) != len(c.Heading) || len(t) != len(c.Text) {
			out = append(out, chunkForm{i, h, t}) // a form is longer than its text when it differs
		}
	}
	return out
}

// process reads and chunks files on every core and hands them, in path
// order, to the single writer: goldmark and SQLite's tokenizer run side by
// side, and rowids follow path order (so follow dates in logs/).
func (ix *Index) process(ctx context.Context, jobs []job, w *writer, st *Stats, progress func(int, int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	todo := make(chan *batch)
	ordered := make(chan *batch, 1024)
	// Reading runs ahead of writing (so parsing goes on while SQLite indexes)
	// by at most maxInflight bytes of files, bounding memory. Files travel
	// in small batches: a hand-off between goroutines costs more than
	// reading a small note.
	var inflight atomic.Int64
	released := make(chan struct{}, 1)
	go func() {
		defer close(todo)
		defer close(ordered)
		for rest := jobs; len(rest) > 0; {
			b := nextBatch(&rest)
			for n := inflight.Load(); n > 0 && n+b.weight > maxInflight; n = inflight.Load() {
				select {
				case <-released:
				case <-ctx.Done():
					return
				}
			}
			inflight.Add(b.weight)
			select {
			case ordered <- b:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		go func() {
			var buf []byte
			for b := range todo {
				for i := range b.jobs {
					b.results[i] = ix.read(&b.jobs[i], &buf)
				}
				close(b.done)
			}
		}()
	}
	done, total := 0, len(jobs)
	for b := range ordered {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		for i := range b.jobs {
			if err := w.write(ctx, &b.jobs[i], b.results[i], st); err != nil {
				return fmt.Errorf("reindex %s: %w", b.jobs[i].e.rel, err)
			}
			b.results[i] = result{}
			done++
			if progress != nil {
				progress(done, total)
			}
		}
		inflight.Add(-b.weight)
		select {
		case released <- struct{}{}:
		default:
		}
	}
	return ctx.Err()
}

// batch is a run of consecutive jobs read by one worker.
type batch struct {
	jobs    []job
	results []result
	done    chan struct{} // closed when results are filled in
	weight  int64
}

// nextBatch takes up to 16 jobs, or 256 KiB of files, off the front of jobs.
func nextBatch(jobs *[]job) *batch {
	n, w := 0, int64(0)
	for n < len(*jobs) && n < 16 && w < 256<<10 {
		w += (*jobs)[n].weight()
		n++
	}
	b := &batch{jobs: (*jobs)[:n], results: make([]result, n), done: make(chan struct{}), weight: w}
	*jobs = (*jobs)[n:]
	return b
}

// read loads, checks, hashes and chunks one file. buf is the worker's read
// buffer, reused from file to file (chunks copy the text they keep): the
// garbage collector is a fifth of a rebuild's CPU otherwise.
func (ix *Index) read(j *job, buf *[]byte) result {
	e := j.e
	if e.problem != "" {
		return result{problem: e.problem}
	}
	if e.size > MaxFileSize {
		return result{problem: fmt.Sprintf("larger than %d MiB", MaxFileSize>>20)}
	}
	if ix.readHook != nil {
		if err := ix.readHook(e.rel); err != nil {
			return result{err: err}
		}
	}
	data, err := readFile(ix.home, e, *buf)
	if err != nil {
		return result{err: err}
	}
	if cap(data) <= 1<<20 {
		*buf = data[:0] // a rare huge file's buffer is not kept
	}
	if len(data) > MaxFileSize {
		return result{problem: fmt.Sprintf("larger than %d MiB", MaxFileSize>>20)}
	}
	// A file whose content is what the index last saw keeps its verdict,
	// indexed or not, and is not warned about again.
	h := sha256.Sum256(data)
	if j.old != nil && bytes.Equal(j.old.hash, h[:]) {
		return result{hash: h[:], same: true}
	}
	// Checked here, not only by the chunker, for a short and stable warning.
	if bytes.IndexByte(data, 0) >= 0 {
		return result{hash: h[:], problem: "binary content (NUL bytes)"}
	}
	if !utf8.Valid(data) {
		return result{hash: h[:], problem: "not valid UTF-8"}
	}
	opts := memory.ChunkOptions{TargetChars: TargetChars}
	if e.root != "" || strings.HasPrefix(e.rel, memory.ImportsDir+"/") {
		// A note outside the daily logs is dated by its front matter, else
		// (a source's note) by the day it was last modified.
		if opts.Date = memory.FrontMatterDate(data); opts.Date == "" && e.root != "" {
			opts.Date = time.Unix(0, e.mtimeNS).Format(time.DateOnly)
		}
	}
	// Every note is redacted on the way in, not only a source folder's: a
	// log edited by hand never went through memory's redacting writers.
	var r result
	if text, found := memory.RedactLines(string(data)); found != nil {
		data, r.secrets = []byte(text), found
	}
	chunks, err := memory.ChunkFile(e.rel, data, opts)
	if err != nil {
		return result{hash: h[:], problem: err.Error()}
	}
	r.hash, r.chunks, r.forms = h[:], chunks, formsOf(chunks)
	return r
}

// readFile reads at most MaxFileSize+1 bytes, refusing to follow a symlink
// the walk did not vet (one swapped in since). Plain syscalls: os.Open would
// add an fstat and a poller registration per file, a tenth of a full
// rebuild's system time.
func readFile(home string, e *entry, buf []byte) ([]byte, error) {
	path, flags := e.path(home), syscall.O_RDONLY|syscall.O_CLOEXEC
	if e.target == "" {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf = slices.Grow(buf[:0], int(min(e.size, MaxFileSize))+1)
	for len(buf) <= MaxFileSize {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew since the walk
		}
		want := cap(buf) - len(buf)
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		buf = buf[:len(buf)+n]
		if n < want {
			break // a short read from a regular file is its end
		}
	}
	return buf, nil
}
