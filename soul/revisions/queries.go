package revisions

// SQL for the revisions table. Numbers count per kind: a new row's id is
// one more than its kind's highest, under the write transaction's lock.
const (
	qLatest = `SELECT id, sha256, removed FROM revisions WHERE kind = ? AND name = ? ORDER BY id DESC LIMIT 1`

	qInsert = `INSERT INTO revisions (kind, id, name, content, removed, sha256, author, reason, created_at)
		VALUES (?, (SELECT coalesce(max(id), 0) + 1 FROM revisions WHERE kind = ?), ?, ?, ?, ?, ?, ?, ?)
		RETURNING id`

	// History leaves content out: a row can be a whole file.
	qHistory = `SELECT id, removed, author, reason, created_at, sha256 FROM revisions
		WHERE kind = ? AND name = ? ORDER BY id DESC`

	qRevision = `SELECT removed, author, reason, created_at, sha256, content FROM revisions
		WHERE kind = ? AND id = ? AND name = ?`
)
