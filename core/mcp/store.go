package mcp

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Migrations holds this package's state.db schema, applied in file-name
// order by core with the other packages' sets.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Server states as recorded and shown.
const (
	StateOK      = "ok"
	StateFailed  = "failed"  // did not start, or could not list its tools
	StateDied    = "died"    // exited while in use
	StateUnknown = "unknown" // never started with this configuration
)

const (
	sqlGetServer = `SELECT config_key, tools, listed, state, last_error, said, updated_at FROM mcp_servers WHERE name = ?`
	sqlPutListed = `INSERT INTO mcp_servers (name, config_key, tools, listed, state, last_error, updated_at)
		VALUES (?, ?, ?, 1, 'ok', '', ?)
		ON CONFLICT (name) DO UPDATE SET config_key = excluded.config_key, tools = excluded.tools,
			listed = 1, state = 'ok', last_error = '', said = '', updated_at = excluded.updated_at`
	// A failure keeps the tools listed under the same configuration: they are
	// still what the server offers once it is back.
	sqlPutFailed = `INSERT INTO mcp_servers (name, config_key, state, last_error, said, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET
			tools = CASE WHEN mcp_servers.config_key = excluded.config_key THEN mcp_servers.tools ELSE '[]' END,
			listed = CASE WHEN mcp_servers.config_key = excluded.config_key THEN mcp_servers.listed ELSE 0 END,
			config_key = excluded.config_key, state = excluded.state,
			last_error = excluded.last_error, said = excluded.said, updated_at = excluded.updated_at`
	sqlDeleteServer   = `DELETE FROM mcp_servers WHERE name = ?`
	sqlDeletePolicy   = `DELETE FROM mcp_policy WHERE server = ?`
	sqlDeleteApproval = `DELETE FROM mcp_approvals WHERE server = ?`
	sqlPolicyAll      = `SELECT server, target, tool, decision FROM mcp_policy`
	sqlPolicySet      = `INSERT INTO mcp_policy (server, target, tool, decision, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (server, target, tool) DO UPDATE SET decision = excluded.decision, updated_at = excluded.updated_at`
	// A server-wide decision replaces the per-tool ones under it.
	sqlPolicyClearTools = `DELETE FROM mcp_policy WHERE server = ? AND target = ? AND tool <> ''`
	sqlPolicyDropOne    = `DELETE FROM mcp_policy WHERE server = ? AND target = ?`
	sqlApprovalsAll     = `SELECT server, entry_hash FROM mcp_approvals`
	sqlApprove          = `INSERT INTO mcp_approvals (server, entry_hash, approved_at) VALUES (?, ?, ?)
		ON CONFLICT (server) DO UPDATE SET entry_hash = excluded.entry_hash, approved_at = excluded.approved_at`
	sqlApprovalDropOne = `DELETE FROM mcp_approvals WHERE server = ? AND entry_hash = ?`
)

// Store is the integrations' state in state.db.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// NewStore uses db, which core has migrated.
func NewStore(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// record is a server's row.
type record struct {
	configKey string
	tools     []cachedTool
	listed    bool
	state     string
	lastError string
	said      string // lastError in the user's terms ('' before migration 0003)
	updatedAt string
}

func (st *Store) get(ctx context.Context, name string) (record, bool, error) {
	var r record
	var tools string
	err := st.db.QueryRowContext(ctx, sqlGetServer, name).Scan(&r.configKey, &tools, &r.listed, &r.state, &r.lastError, &r.said, &r.updatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return record{}, false, nil
	}
	if err != nil {
		return record{}, false, fmt.Errorf("read integration %s: %w", name, err)
	}
	if r.tools, err = toolsFromJSON(tools); err != nil {
		return record{}, false, fmt.Errorf("read integration %s: tools: %w", name, err)
	}
	return r, true, nil
}

func (st *Store) putListed(ctx context.Context, name, key string, tools []cachedTool) error {
	b, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	if _, err := st.db.ExecContext(ctx, sqlPutListed, name, key, string(b), st.now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("save integration %s: %w", name, err)
	}
	return nil
}

func (st *Store) putFailed(ctx context.Context, name, key, state, msg, said string) error {
	if _, err := st.db.ExecContext(ctx, sqlPutFailed, name, key, state, msg, said, st.now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("save integration %s: %w", name, err)
	}
	return nil
}

// Forget removes a server's cached state, approval and policy.
func (st *Store) Forget(ctx context.Context, name string) error {
	for _, q := range []string{sqlDeleteServer, sqlDeletePolicy, sqlDeleteApproval} {
		if _, err := st.db.ExecContext(ctx, q, name); err != nil {
			return fmt.Errorf("forget integration %s: %w", name, err)
		}
	}
	return nil
}

// Approve records that the user let the entry, as written, run.
func (st *Store) Approve(ctx context.Context, s Server) error {
	if _, err := st.db.ExecContext(ctx, sqlApprove, s.Name, s.EntryHash(), st.now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("approve integration %s: %w", s.Name, err)
	}
	return nil
}

// Policy is the allow/deny decisions for the servers as configured:
// server -> tool ("" for all) -> decision.
type Policy map[string]map[string]string

// Decision is what applies to a tool: its own decision, else the server's,
// else "ask".
func (p Policy) Decision(server, tool string) string {
	if d, ok := p[server][tool]; ok {
		return d
	}
	if d, ok := p[server][""]; ok {
		return d
	}
	return "ask"
}

// trust is what the user decided about the servers of a configuration.
type trust struct {
	approved map[string]bool // by server name: its entry, as written, is approved
	policy   Policy          // the decisions given to each server's target
}

// trust reads the approvals and decisions that hold for cfg: an approval
// for the entry exactly as it is written, decisions for the server's
// target. The others (a server removed from mcp.json, or replaced under
// the same name) are dropped on the way, so a server that comes back later
// starts from none.
func (st *Store) trust(ctx context.Context, cfg *Config) (trust, error) {
	t := trust{approved: map[string]bool{}, policy: Policy{}}
	type stale struct{ q, server, key string }
	var drop []stale
	rows, err := st.db.QueryContext(ctx, sqlApprovalsAll)
	if err != nil {
		return t, fmt.Errorf("read integration approvals: %w", err)
	}
	for rows.Next() {
		var server, hash string
		if err := rows.Scan(&server, &hash); err != nil {
			rows.Close()
			return t, fmt.Errorf("read integration approvals: %w", err)
		}
		if s, ok := cfg.Servers[server]; ok && s.EntryHash() == hash {
			t.approved[server] = true
		} else {
			drop = append(drop, stale{sqlApprovalDropOne, server, hash})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, fmt.Errorf("read integration approvals: %w", err)
	}
	seen := map[[2]string]bool{}
	rows, err = st.db.QueryContext(ctx, sqlPolicyAll)
	if err != nil {
		return t, fmt.Errorf("read integration policy: %w", err)
	}
	for rows.Next() {
		var server, target, tool, decision string
		if err := rows.Scan(&server, &target, &tool, &decision); err != nil {
			rows.Close()
			return t, fmt.Errorf("read integration policy: %w", err)
		}
		if s, ok := cfg.Servers[server]; ok && s.TargetKey() == target {
			if t.policy[server] == nil {
				t.policy[server] = map[string]string{}
			}
			t.policy[server][tool] = decision
		} else if !seen[[2]string{server, target}] {
			seen[[2]string{server, target}] = true
			drop = append(drop, stale{sqlPolicyDropOne, server, target})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, fmt.Errorf("read integration policy: %w", err)
	}
	for _, d := range drop {
		if _, err := st.db.ExecContext(ctx, d.q, d.server, d.key); err != nil {
			return t, fmt.Errorf("drop a stale integration decision: %w", err)
		}
	}
	return t, nil
}

// SetPolicy records allow or deny for a tool of the server at target, or
// with tool "" for the whole server (replacing its per-tool decisions).
func (st *Store) SetPolicy(ctx context.Context, server, target, tool, decision string) error {
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save integration policy: %w", err)
	}
	defer tx.Rollback()
	if tool == "" {
		if _, err := tx.ExecContext(ctx, sqlPolicyClearTools, server, target); err != nil {
			return fmt.Errorf("save integration policy: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, sqlPolicySet, server, target, tool, decision, st.now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("save integration policy: %w", err)
	}
	return tx.Commit()
}
