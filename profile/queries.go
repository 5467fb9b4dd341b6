package profile

// SQL for profile records, history and proposals. The three statements that
// write profile_records are used only by applyChange, which takes a
// Directive; nowrite_test.go checks that this stays true.
const (
	qGetValue = `SELECT value FROM profile_records WHERE key = ?`

	qAllRecords = `SELECT key, scope, value, updated_at FROM profile_records ORDER BY key`

	qInsertRecord = `INSERT INTO profile_records (key, scope, value, updated_at) VALUES (?, ?, ?, ?)`

	qUpdateRecord = `UPDATE profile_records SET value = ?, updated_at = ? WHERE key = ?`

	qDeleteRecord = `DELETE FROM profile_records WHERE key = ?`

	qInsertHistory = `INSERT INTO profile_history (key, old_value, new_value, changed_at, command)
		VALUES (?, ?, ?, ?, ?)`

	qHistory = `SELECT id, key, old_value, new_value, changed_at, command FROM profile_history ORDER BY id`

	qLastChangeOf = `SELECT changed_at FROM profile_history WHERE key = ? ORDER BY id DESC LIMIT 1`

	qInsertProposal = `INSERT INTO profile_proposals (key, value, reason, proposed_by, status, created_at)
		VALUES (?, ?, ?, ?, 'pending', ?)`

	qPendingProposalFor = `SELECT id FROM profile_proposals
		WHERE key = ? AND value = ? AND status = 'pending' ORDER BY id LIMIT 1`

	qProposal = `SELECT id, key, value, reason, proposed_by, status, created_at, decided_at
		FROM profile_proposals WHERE id = ?`

	qAllProposals = `SELECT id, key, value, reason, proposed_by, status, created_at, decided_at
		FROM profile_proposals ORDER BY id`

	qProposalsByStatus = `SELECT id, key, value, reason, proposed_by, status, created_at, decided_at
		FROM profile_proposals WHERE status = ? ORDER BY id`

	qDecideProposal = `UPDATE profile_proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'`
)
