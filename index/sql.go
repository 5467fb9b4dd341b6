package index

// The index's SQL besides schema.sql, as named constants so each statement is
// written once and prepared once per transaction.
const (
	sqlReadMeta = `SELECT key, value FROM meta`

	sqlSetMeta = `INSERT INTO meta(key, value) VALUES (?1, ?2)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`

	sqlLoadManifest = `SELECT id, path, size, mtime_ns, hash, problem, racy, first_chunk, last_chunk FROM files`

	sqlNextIDs = `SELECT (SELECT coalesce(max(id), 0) + 1 FROM files), (SELECT coalesce(max(id), 0) + 1 FROM chunks)`

	// Multi-row statements (see writer.go's bulk): the VALUES tuples are
	// appended to these, the conflict clause after them.
	sqlUpsertFiles         = `INSERT INTO files(id, path, size, mtime_ns, hash, problem, racy, first_chunk, last_chunk) VALUES `
	sqlUpsertFilesConflict = ` ON CONFLICT(id) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
		hash = excluded.hash, problem = excluded.problem, racy = excluded.racy,
		first_chunk = excluded.first_chunk, last_chunk = excluded.last_chunk`
	sqlInsertChunks = `INSERT INTO chunks(id, file_id, start_line, end_line, heading, date, text, by) VALUES `

	// The notes of a source folder that is gone, read from the old index
	// to carry them into a rebuilt one: ?1 is "NAME:", ?2 "NAME;".
	sqlKeptNotes = `SELECT f.path, f.size, f.mtime_ns, f.hash, c.start_line, c.end_line, c.heading, c.date, c.text, c.by
		FROM files f JOIN chunks c ON c.file_id = f.id
		WHERE f.path >= ?1 AND f.path < ?2 AND f.problem IS NULL ORDER BY f.path, c.id`

	sqlTouchFile = `UPDATE files SET size = ?2, mtime_ns = ?3, racy = ?4 WHERE id = ?1`

	sqlDeleteFile = `DELETE FROM files WHERE id = ?1`

	// FTS5 indexes the token form of a chunk (tokenForm, segment.go): its
	// text, with each character of a CJK, Hangul or Thai run apart. A
	// chunk without such a run is its own form: those are indexed as they
	// are, read back from chunks; the others (?3, a JSON array of ids) are
	// inserted with their forms (sqlIndexForms, VALUES appended).
	sqlIndexChunks = `INSERT INTO chunks_fts(rowid, heading, text)
		SELECT id, heading, text FROM chunks WHERE id BETWEEN ?1 AND ?2
		AND id NOT IN (SELECT value FROM json_each(?3))`
	sqlIndexForms = `INSERT INTO chunks_fts(rowid, heading, text) VALUES `

	// An external-content FTS5 table forgets a row only when told the exact
	// values it indexed, so they are read back from chunks before deleting.
	// ?1 is a JSON array of [first, last] id ranges.
	sqlUnindexRanges = `INSERT INTO chunks_fts(chunks_fts, rowid, heading, text)
		SELECT 'delete', c.id, fts_form(c.heading), fts_form(c.text) FROM json_each(?1) r
		JOIN chunks c ON c.id BETWEEN r.value->>0 AND r.value->>1`

	sqlDeleteRanges = `DELETE FROM chunks WHERE id IN (
		SELECT c.id FROM json_each(?1) r JOIN chunks c ON c.id BETWEEN r.value->>0 AND r.value->>1)`

	sqlTotals = `SELECT count(*), coalesce(sum(size), 0), coalesce(sum(last_chunk - first_chunk + 1), 0)
		FROM files WHERE problem IS NULL`

	// Problems, and of them the files the last update could not stat, list
	// or read: I/O errors a person has to look at (see ReadErrorPrefix).
	sqlCountProblems = `SELECT count(*), count(*) FILTER (WHERE problem LIKE 'cannot %') FROM files WHERE problem IS NOT NULL`

	// A bulk build flushes FTS5's in-memory terms less often with a larger
	// hash, and leaves segment merging to the single optimize at the end.
	sqlBuildSettings = `INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('hashsize', 8388608);
		INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0)`

	// Merge the build's segments into one b-tree (fewer pages per query
	// term), then restore FTS5's defaults for the incremental updates to
	// come. secure-delete makes an update remove a deleted chunk's terms
	// from the b-tree itself: by default FTS5 writes a delete marker that
	// carries the term again (a removed secret stays readable in index.db
	// until a merge; docs/decisions-forget.md).
	sqlFinishBuild = `INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize');
		INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 4);
		INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('secure-delete', 1);
		DELETE FROM chunks_fts_config WHERE k = 'hashsize'`
)

// A search (rank.go): each sub-query ranks ids by bm25 (heading matches weigh
// 2x body matches), then the hits kept are read in one statement, by a JSON
// array of ids (?1); ?2 is the expression whose terms the snippet marks.
const (
	sqlRankIDs = `WITH top(id, score) AS (
			SELECT rowid, bm25(chunks_fts, 2.0, 1.0) FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY 2 LIMIT ?2)
		SELECT top.id, top.score, c.date, c.file_id, c.by FROM top JOIN chunks c ON c.id = top.id`
	// sqlRankIDs kept to the chunks of the days ?3..?4 (days.go).
	sqlRankIDsOfDays = `WITH top(id, score) AS (
			SELECT rowid, bm25(chunks_fts, 2.0, 1.0) FROM chunks_fts WHERE chunks_fts MATCH ?1
				AND rowid IN (SELECT id FROM chunks WHERE date BETWEEN ?3 AND ?4) ORDER BY 2 LIMIT ?2)
		SELECT top.id, top.score, c.date, c.file_id, c.by FROM top JOIN chunks c ON c.id = top.id`
	sqlAnyOfDays    = `SELECT EXISTS (SELECT 1 FROM chunks WHERE date BETWEEN ?1 AND ?2)`
	sqlChunksOfDays = `SELECT id, date, file_id, by FROM chunks WHERE date BETWEEN ?1 AND ?2 ORDER BY date DESC, id LIMIT ?3`
	// Typos (typo.go): whether a word has a hit, the vocabulary's terms
	// from ?1 up to ?2, and a chunk holding a term.
	sqlAnyMatch  = `SELECT EXISTS (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?1)`
	sqlVocabFrom = `SELECT term, doc FROM chunks_vocab WHERE term >= ?1 AND term < ?2`
	sqlOneMatch  = `SELECT c.text FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?1 LIMIT 1`
	// The text of candidates, for a "when" question's date check.
	sqlChunkTexts = `SELECT c.id, c.text FROM json_each(?1) j JOIN chunks c ON c.id = j.value`
	sqlFetchHits  = `SELECT c.id, f.path, c.start_line, c.end_line, c.heading, c.date, c.by, c.text,
			(SELECT snippet(chunks_fts, 1, char(2), char(3), '…', 16) FROM chunks_fts
				WHERE chunks_fts MATCH ?2 AND rowid = c.id)
		FROM json_each(?1) j JOIN chunks c ON c.id = j.value JOIN files f ON f.id = c.file_id`
	sqlFetchHitsNoSnippet = `SELECT c.id, f.path, c.start_line, c.end_line, c.heading, c.date, c.by, c.text, ''
		FROM json_each(?1) j JOIN chunks c ON c.id = j.value JOIN files f ON f.id = c.file_id`
)
