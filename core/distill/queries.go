package distill

import "embed"

// Migrations holds this package's state.db schema (the proposals), applied
// by the workspace opener (core).
//
//go:embed migrations/*.sql
var Migrations embed.FS

// SQL for proposals.
const (
	qInsertProposal = `INSERT INTO distill_proposals (period, action, section, text, source, replaces, fact_key, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(fact_key) DO NOTHING`
	qKnownFact       = `SELECT status FROM distill_proposals WHERE fact_key = ?`
	qPendingProposal = `SELECT id, period, action, section, text, source, replaces FROM distill_proposals
		WHERE status = 'pending' ORDER BY id`
	qDecideProposal = `UPDATE distill_proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'`
)
