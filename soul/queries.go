package soul

// SQL for SOUL.md revisions.
const (
	qLatest = `SELECT id, sha256 FROM soul_revisions ORDER BY id DESC LIMIT 1`

	qInsertRevision = `INSERT INTO soul_revisions (content, sha256, author, reason, created_at)
		VALUES (?, ?, ?, ?, ?)`

	// History leaves content out: it can be 16 KiB a row.
	qHistory = `SELECT id, author, reason, created_at, sha256 FROM soul_revisions ORDER BY id DESC`

	qRevision = `SELECT id, author, reason, created_at, sha256, content FROM soul_revisions WHERE id = ?`
)
