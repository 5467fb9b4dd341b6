package skills

// SQL for skill revisions.
const (
	qLatest = `SELECT id, sha256, removed FROM skill_revisions WHERE name = ? ORDER BY id DESC LIMIT 1`

	qInsertRevision = `INSERT INTO skill_revisions (name, content, removed, sha256, author, reason, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`

	// History leaves content out: a row can be a whole SKILL.md.
	qHistory = `SELECT id, name, removed, author, reason, created_at, sha256 FROM skill_revisions
		WHERE name = ? ORDER BY id DESC`

	qRevision = `SELECT id, name, removed, author, reason, created_at, sha256, content FROM skill_revisions
		WHERE id = ? AND name = ?`

	// The names whose latest revision says the skill exists.
	qLiveNames = `SELECT name FROM skill_revisions AS r
		WHERE id = (SELECT max(id) FROM skill_revisions WHERE name = r.name) AND removed = 0
		ORDER BY name`
)
