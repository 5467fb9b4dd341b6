package index

// Optional embeddings (docs/decisions-index.md, "Embeddings"): each chunk's
// paragraphs (a conversation's turns) get a vector from an embedding model
// the user named; a search fuses their cosine with the lexical ranking
// (dense.go). Nothing here runs, and no table of it exists in index.db,
// until a caller sets an Embedder: without one the index is what it was.

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"agent/index/sqlitedb"
)

// Embedder turns texts into vectors: an embedding model (core/embed serves
// Ollama's /api/embed). The index never calls a model without one.
type Embedder interface {
	// Identity names the model and its exact weights, e.g.
	// "nomic-embed-text:latest@0a109f42…": vectors of two identities are
	// never compared.
	Identity(ctx context.Context) (string, error)
	// Embed returns one vector per text, in order, all of one length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name is the model as the user named it, for messages.
	Name() string
}

// Tuning of the embedding pass.
const (
	// embedBatch is how many texts go in one request: Ollama embeds a
	// request's inputs in one call, and a batch is also what a crash or a
	// stop loses at most.
	embedBatch = 32
	// maxUnitChars cuts a very long paragraph: an embedding model reads a
	// few hundred tokens, and a unit's vector stands for its start anyway.
	maxUnitChars = 2000
	// metaEmbedModel is the meta key of the model identity (with its
	// dimensions) the stored unit vectors belong to.
	metaEmbedModel = "embed_model"
)

// The tables of the embeddings, made the first time a model embeds
// something. vectors is the store, keyed by the model and the unit's text
// hash, so any chunk with the same paragraph reuses it and a full rebuild
// carries it over; vec_units says which units of which chunk have a vector
// (the brute-force search reads it); a deleted chunk's rows go with it.
// vectors is a rowid table: a vector (400 bytes for 100 dimensions, 3 KB
// for 768) fits on its page there, where a WITHOUT ROWID row that size
// spills to overflow pages, and the search reads the table in order.
const sqlVectorSchema = `
CREATE TABLE IF NOT EXISTS vectors (
    id    INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    hash  BLOB NOT NULL,
    vec   BLOB NOT NULL,
    UNIQUE (model, hash)
);
CREATE TABLE IF NOT EXISTS vec_units (
    chunk_id INTEGER NOT NULL,
    unit     INTEGER NOT NULL,
    hash     BLOB NOT NULL,
    PRIMARY KEY (chunk_id, unit)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS vec_units_gone AFTER DELETE ON chunks BEGIN
    DELETE FROM vec_units WHERE chunk_id = old.id;
END;`

const (
	sqlHasVectors = `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'vectors'`
	// The backlog below a chunk id: a pass reads on from where its last
	// batch stopped, not from the top over every chunk it has done.
	sqlEmbedBacklog = `SELECT id, text FROM chunks WHERE id < ?1 AND id NOT IN (SELECT chunk_id FROM vec_units) ORDER BY id DESC`
	sqlCountBacklog = `SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vec_units)`
	sqlVectorByHash = `SELECT vec FROM vectors WHERE model = ?1 AND hash = ?2`
	sqlInsertVector = `INSERT OR IGNORE INTO vectors(model, hash, vec) VALUES (?1, ?2, ?3)`
	// A unit row is written only while its chunk still holds the text it
	// was cut from: a chunk deleted (or its id reused) since the pass read
	// it is left to the next pass.
	sqlInsertUnit = `INSERT OR REPLACE INTO vec_units(chunk_id, unit, hash)
		SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?1 AND text = ?4)`
	sqlForgetModel    = `DELETE FROM vec_units; DELETE FROM vectors WHERE model <> ?1`
	sqlScanUnits      = `SELECT chunk_id, hash FROM vec_units`
	sqlScanVectors    = `SELECT hash, vec FROM vectors WHERE +model = ?1` // in rowid order, not by the index
	sqlCountModelVecs = `SELECT count(*) FROM vectors WHERE model = ?1`
)

// units splits a chunk's text into what is embedded: its paragraphs (a
// LoCoMo turn, a note's paragraph, a list), each cut at maxUnitChars. A
// text with no blank line is one unit. It is an Index's dense.split; the
// LoCoMo measurement swaps in whole chunks to compare
// (docs/decisions-index.md, "Embeddings").
func units(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if len(p) > maxUnitChars {
			p = strings.ToValidUTF8(p[:maxUnitChars], "")
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = []string{strings.TrimSpace(text)}
	}
	return out
}

func unitHash(text string) []byte {
	h := sha256.Sum256([]byte(text))
	return h[:16] // 128 bits: the key of a paragraph, not a security check
}

// encodeVec stores a vector as little-endian float32s, normalised to unit
// length so a dot product is the cosine.
func encodeVec(v []float32) []byte {
	n := norm(v)
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(float64(x)/n)))
	}
	return b
}

// normalize scales v to unit length in place, as encodeVec stores it (the
// same float32 values), so a query's dot product with a stored vector is
// their cosine.
func normalize(v []float32) {
	n := norm(v)
	for i, x := range v {
		v[i] = float32(float64(x) / n)
	}
}

// norm is v's length, or 1 for a zero vector, which then stays zero.
func norm(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return 1
	}
	return math.Sqrt(n)
}

// dotBlob is the dot product of q with a stored vector, read in place.
func dotBlob(q []float32, b []byte) float32 {
	if len(b) != 4*len(q) {
		return 0
	}
	var s float32
	for i, x := range q {
		s += x * math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return s
}

// SetEmbedder turns on the fusion of embeddings into searches (dense.go)
// and makes Embed possible. nil turns it off.
func (ix *Index) SetEmbedder(e Embedder) {
	ix.embedder = e
	ix.denseOff = ""
}

// EmbedStats is what an embedding pass did.
type EmbedStats struct {
	Chunks   int // chunks whose units all have a vector now
	Embedded int // texts sent to the model
	Reused   int // units whose vector was already stored
	Left     int // chunks still without vectors (a limit or an error stopped the pass)
}

// EmbedOptions tunes Embed.
type EmbedOptions struct {
	// Limit stops the pass after this many chunks (0: all); the rest waits
	// for the next pass.
	Limit int
	// Progress, when set, hears (chunks done, chunks to do).
	Progress func(done, total int)
	// Notice hears what the user should know: a change of model.
	Notice func(string)
}

// Embed gives a vector to every unit of every chunk that has none yet, with
// the Embedder set by SetEmbedder: only new or changed text is sent, in
// batches, and a paragraph already stored under the same model (another
// chunk's, or the previous index file's after a rebuild) is reused. A
// different model from the one the stored vectors came from starts over,
// with a notice. Each batch is its own short transaction, and the model is
// called outside any, so searches and refreshes go on meanwhile.
func (ix *Index) Embed(ctx context.Context, opts EmbedOptions) (EmbedStats, error) {
	var st EmbedStats
	e := ix.embedder
	if e == nil {
		return st, errors.New("embed: no embedding model set")
	}
	id, err := e.Identity(ctx)
	if err != nil {
		return st, err
	}
	todo, err := ix.embedPrepare(ctx, id, opts.Notice)
	if err != nil {
		return st, err
	}
	if opts.Limit > 0 && todo > opts.Limit {
		st.Left = todo - opts.Limit
		todo = opts.Limit
	}
	// Newest first, each batch below the last one's chunks. A chunk a batch
	// read but could not store (its text changed meanwhile), or one a
	// rebuild renumbered, is left to the next pass.
	below := int64(math.MaxInt64)
	for st.Chunks < todo {
		n, err := ix.embedBatch(ctx, e, id, todo-st.Chunks, &below, &st)
		if err != nil {
			st.Left += todo - st.Chunks
			return st, err
		}
		if n == 0 {
			break
		}
		st.Chunks += n
		if opts.Progress != nil {
			opts.Progress(st.Chunks, todo)
		}
	}
	return st, nil
}

// embedPrepare makes the tables, handles a change of model and counts the
// chunks to embed.
func (ix *Index) embedPrepare(ctx context.Context, id string, notice func(string)) (int, error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	if ix.full.needed() {
		if _, err := ix.update(ctx, false, nil, false); err != nil {
			return 0, err
		}
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, sqlVectorSchema); err != nil {
		return 0, fmt.Errorf("embed: %w", err)
	}
	var was sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?1`, metaEmbedModel).Scan(&was); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if was.String != id {
		if was.Valid && was.String != "" && notice != nil {
			notice(fmt.Sprintf("embedding model changed (%s, now %s): embedding every passage again", was.String, id))
		}
		if _, err := tx.ExecContext(ctx, sqlForgetModel, id); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, sqlSetMeta, metaEmbedModel, id); err != nil {
			return 0, err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, sqlCountBacklog).Scan(&n); err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

type pendingUnit struct {
	chunk int64
	unit  int
	hash  []byte
	text  string // the chunk's whole text, checked again when stored
}

// embedBatch embeds the units of the next chunks without vectors below
// *below, about embedBatch texts' worth, moves *below past them and returns
// how many chunks it finished.
func (ix *Index) embedBatch(ctx context.Context, e Embedder, id string, most int, below *int64, st *EmbedStats) (int, error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return 0, err
	}
	var pend []pendingUnit
	seen := map[string]bool{} // unit hashes in texts
	var texts []string
	var hashes [][]byte // of texts
	chunks := 0
	err = func() error {
		// One connection: the statement is prepared before the scan
		// holds it, and used after the scan is closed.
		look, err := ix.db.PrepareContext(ctx, sqlVectorByHash)
		if err != nil {
			return err
		}
		defer look.Close()
		rows, err := ix.db.QueryContext(ctx, sqlEmbedBacklog, *below)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() && chunks < most && len(texts) < embedBatch {
			var cid int64
			var text string
			if err := rows.Scan(&cid, &text); err != nil {
				return err
			}
			chunks++
			*below = cid
			for ui, u := range ix.dense.split(text) {
				h := unitHash(u)
				pend = append(pend, pendingUnit{cid, ui, h, text})
				if seen[string(h)] {
					continue
				}
				seen[string(h)] = true
				texts, hashes = append(texts, u), append(hashes, h) // looked up below, after the scan
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		// Drop the texts already stored under this model.
		kept, keptHashes := texts[:0], hashes[:0]
		for i, u := range texts {
			var b []byte
			err := look.QueryRowContext(ctx, id, hashes[i]).Scan(&b)
			switch {
			case err == nil:
				st.Reused++
			case errors.Is(err, sql.ErrNoRows):
				kept, keptHashes = append(kept, u), append(keptHashes, hashes[i])
			default:
				return err
			}
		}
		texts, hashes = kept, keptHashes
		return nil
	}()
	release()
	if err != nil || chunks == 0 {
		return 0, err
	}
	var vecs [][]float32
	for i := 0; i < len(texts); i += embedBatch { // the last chunk read may pass the batch
		part := texts[i:min(i+embedBatch, len(texts))]
		vs, err := e.Embed(ctx, part)
		if err != nil {
			return 0, err
		}
		if len(vs) != len(part) {
			return 0, fmt.Errorf("embed: %s returned %d vectors for %d texts", e.Name(), len(vs), len(part))
		}
		vecs = append(vecs, vs...)
		st.Embedded += len(part)
	}
	return chunks, ix.storeVectors(ctx, id, hashes, vecs, pend)
}

// storeVectors writes one batch's vectors and units in one transaction.
func (ix *Index) storeVectors(ctx context.Context, id string, hashes [][]byte, vecs [][]float32, pend []pendingUnit) error {
	release, err := ix.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	if ix.db == nil {
		return nil // the index went away; the next pass starts again
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// A rebuild in between made a new file without the tables.
	if _, err := tx.ExecContext(ctx, sqlVectorSchema); err != nil {
		return err
	}
	for i, h := range hashes {
		if _, err := tx.ExecContext(ctx, sqlInsertVector, id, h, encodeVec(vecs[i])); err != nil {
			return err
		}
	}
	for _, p := range pend {
		if _, err := tx.ExecContext(ctx, sqlInsertUnit, p.chunk, p.unit, p.hash, p.text); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// EmbedBacklog is how many chunks have no vectors yet (0 when embeddings
// were never turned on).
func (ix *Index) EmbedBacklog(ctx context.Context) (int, error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	if ix.db == nil || !ix.hasVectors(ctx) {
		return 0, nil
	}
	var n int
	err = ix.db.QueryRowContext(ctx, sqlCountBacklog).Scan(&n)
	return n, err
}

func (ix *Index) hasVectors(ctx context.Context) bool {
	var n int
	return ix.db.QueryRowContext(ctx, sqlHasVectors).Scan(&n) == nil && n > 0
}

// carryVectors copies the stored vectors of the index being replaced into
// the new file of a full rebuild, so it embeds nothing it had already. The
// vectors are derived data: when they cannot be carried (a damaged old
// file) the rebuild goes on without them, and they are embedded again.
func (ix *Index) carryVectors(ctx context.Context, newPath string) {
	if err := ix.copyVectors(ctx, newPath); err != nil {
		ix.warn(err.Error())
	}
}

func (ix *Index) copyVectors(ctx context.Context, newPath string) error {
	if ix.db == nil || !ix.hasVectors(ctx) {
		return nil
	}
	var model sql.NullString
	ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?1`, metaEmbedModel).Scan(&model)
	if !model.Valid {
		return nil
	}
	db := openDB(dsn(newPath, "rw"), "")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH ?1 AS old`, sqlitedb.File(ix.path, "mode=ro")); err != nil {
		return fmt.Errorf("reindex: keep the vectors: %w", err)
	}
	defer conn.ExecContext(context.Background(), `DETACH old`)
	_, err = conn.ExecContext(ctx, sqlVectorSchema+`
		INSERT INTO main.vectors(model, hash, vec) SELECT model, hash, vec FROM old.vectors WHERE model = ?1;
		INSERT INTO main.meta(key, value) VALUES (?2, ?1)`, model.String, metaEmbedModel)
	if err != nil {
		return fmt.Errorf("reindex: keep the vectors: %w", err)
	}
	return nil
}

// Embedded says whether embeddings were ever stored in this index.
func (ix *Index) Embedded(ctx context.Context) bool {
	release, err := ix.enter(ctx)
	if err != nil {
		return false
	}
	defer release()
	return ix.db != nil && ix.hasVectors(ctx)
}
