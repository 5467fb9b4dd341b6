package journal

// SQL for the journal's own tables (migrations/). The records a change
// from elsewhere writes are written by their owners' ApplyTx.
const (
	qDevice       = `SELECT device, name, machine, hlc_ms, hlc_c FROM journal_device WHERE one = 1`
	qInsertDevice = `INSERT INTO journal_device (one, device, name, machine) VALUES (1, ?, ?, ?)`
	qRenewDevice  = `UPDATE journal_device SET device = ?, name = ?, machine = ? WHERE one = 1`
	qSaveClock    = `UPDATE journal_device SET hlc_ms = ?, hlc_c = ? WHERE one = 1`

	qAnyOutbox     = `SELECT 1 FROM journal_outbox LIMIT 1`
	qUnstamped     = `SELECT id, kind, key FROM journal_outbox WHERE hlc IS NULL ORDER BY id`
	qStampOutbox   = `UPDATE journal_outbox SET hlc = ? WHERE id = ?`
	qStamped       = `SELECT id, kind, key, op, value, hlc FROM journal_outbox WHERE hlc IS NOT NULL ORDER BY id`
	qDeleteWritten = `DELETE FROM journal_outbox WHERE id <= ? AND hlc IS NOT NULL`

	qClock         = `SELECT hlc FROM journal_clock WHERE kind = ? AND key = ?`
	qSetClock      = `INSERT INTO journal_clock (kind, key, hlc) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET hlc = excluded.hlc`
	qMarkApplied   = `INSERT OR IGNORE INTO journal_applied (hlc) VALUES (?)`
	qIsApplied     = `SELECT 1 FROM journal_applied WHERE hlc = ?`
	qBeginApplying = `INSERT INTO journal_applying (one) VALUES (1)`
	qEndApplying   = `DELETE FROM journal_applying`

	qRefused    = `INSERT OR IGNORE INTO journal_refused (hash) VALUES (?)`
	qReadStates = `SELECT file, size, mtime_ns, offset, prefix_hash FROM journal_read`
	qSetRead    = `INSERT INTO journal_read (file, size, mtime_ns, offset, prefix_hash) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (file) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns,
		offset = excluded.offset, prefix_hash = excluded.prefix_hash`
)
