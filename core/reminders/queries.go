package reminders

// SQL for reminders.
const (
	qInsert = `INSERT INTO reminders (text, due_at, created_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?)`

	qChange = `INSERT INTO reminder_changes (reminder_id, action, old_due_at, new_due_at, at, command)
		VALUES (?, ?, ?, ?, ?, ?)`

	qColumns = `id, text, due_at, status, created_by, created_at, delivered_at`

	qGet = `SELECT ` + qColumns + ` FROM reminders WHERE id = ?`

	// Most urgent first: the earliest due time, then the oldest id.
	qPending = `SELECT ` + qColumns + ` FROM reminders WHERE status = 'pending' ORDER BY due_at, id`

	qAll = `SELECT ` + qColumns + ` FROM reminders ORDER BY due_at, id`

	qDuePending = `SELECT ` + qColumns + ` FROM reminders
		WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id`

	qUndelivered = `SELECT ` + qColumns + ` FROM reminders
		WHERE status = 'pending' AND delivered_at IS NULL AND due_at <= ? ORDER BY due_at, id`

	qSetStatus = `UPDATE reminders SET status = ?, updated_at = ? WHERE id = ? AND status = 'pending'`

	qSnooze = `UPDATE reminders SET due_at = ?, delivered_at = NULL, updated_at = ?
		WHERE id = ? AND status = 'pending'`

	// The claim: only the tick whose UPDATE changes the row delivers it.
	qDeliver = `UPDATE reminders SET delivered_at = ?, updated_at = ?
		WHERE id = ? AND status = 'pending' AND delivered_at IS NULL`

	// A reminder from another device (ApplyTx), known by its uid (the
	// column journal's migration added).
	qByUID           = `SELECT ` + qColumns + ` FROM reminders WHERE uid = ?`
	qInsertTravelled = `INSERT INTO reminders (uid, text, due_at, status, created_by, created_at, delivered_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	qUpdateTravelled = `UPDATE reminders SET text = ?, due_at = ?, status = ?, delivered_at = ?, updated_at = ? WHERE id = ?`
	qDeleteChanges   = `DELETE FROM reminder_changes WHERE reminder_id = ?`
	qDeleteReminder  = `DELETE FROM reminders WHERE id = ?`
)
