package forget

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"agent/core/forgotten"
	jrnl "agent/core/journal"
	"agent/memory"
	"agent/soul/revisions"
)

// RecoveryDir holds a forget in progress, for crash recovery: the new
// content of every file it rewrites, staged, and journal.json saying where
// each goes (the on-disk names stay as older versions wrote them). Nothing
// in it holds the phrase. Not to be confused with core/journal's
// per-device record journals, which a forget also rewrites (journals).
const (
	RecoveryDir  = ".forget"
	recoveryFile = RecoveryDir + "/journal.json"
)

// recovery is a forget in progress. It is committed when state.db holds a
// forgotten row with its id (written in the transaction that changes
// state.db); until then the next open rolls it back (deletes the staged
// files), after it rolls it forward (renames them into place, purges the
// index).
type recovery struct {
	ID    string       `json:"id"`
	Files []stagedFile `json:"files"`
	Units []string     `json:"units,omitempty"` // hex hashes of the index units whose vectors go
	Index bool         `json:"index"`
	// Journals: journals hold it; rewritten from the forgotten row's hash
	// at the roll forward, under the journal lock.
	Journals bool `json:"journals,omitempty"`
}

type stagedFile struct {
	Rel    string `json:"rel"`            // where it goes
	From   string `json:"from,omitempty"` // the file it replaces under another name, removed once Rel is in place
	Staged string `json:"staged"`         // name inside journalDir
}

// Result says what a forget did, in counts.
type Result struct {
	ID       string `json:"id"`
	Files    int    `json:"files"`
	Rows     int    `json:"rows"`
	Sessions int    `json:"sessions"`
	Index    bool   `json:"index"`
}

// Apply carries out the plan: every workspace file rewritten, every
// state.db value changed, the index rebuilt without the phrase. A file
// changed since Find is an error and nothing is done. A process killed
// midway leaves a recovery file the next Recover completes or undoes.
func (p *Plan) Apply(ctx context.Context, home string, db *sql.DB, ix Index, now time.Time) (Result, error) {
	unlock, err := memory.Lock(home)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	if err := recoverLocked(ctx, home, db, ix); err != nil {
		return Result{}, err
	}
	j := recovery{ID: newID(), Index: p.indexHas, Journals: len(p.journals) > 0}
	if p.remote != "" {
		j.ID = p.remote
	}
	for _, u := range p.units {
		j.Units = append(j.Units, hex.EncodeToString(u))
	}
	if err := os.MkdirAll(filepath.Join(home, RecoveryDir), 0o700); err != nil {
		return Result{}, fmt.Errorf("forget: %w", err)
	}
	for i, e := range p.files {
		if err := ctx.Err(); err != nil { // Ctrl-C: nothing is committed yet
			rollBack(home, j)
			return Result{}, err
		}
		cur, err := os.ReadFile(filepath.Join(home, e.rel))
		if err != nil || string(cur) != string(e.old) {
			rollBack(home, j)
			return Result{}, fmt.Errorf("forget: %s changed since it was listed; nothing was changed (run the command again)", e.rel)
		}
		st := stagedFile{Rel: e.to, Staged: strconv.Itoa(i + 1)}
		if e.to != e.rel {
			st.From = e.rel
		}
		j.Files = append(j.Files, st)
		if err := stage(home, e.rel, st.Staged, e.new); err != nil {
			rollBack(home, j)
			return Result{}, err
		}
	}
	if err := writeRecovery(home, j); err != nil {
		rollBack(home, j)
		return Result{}, err
	}
	if err := p.commit(ctx, db, j.ID, now); err != nil {
		rollBack(home, j)
		return Result{}, err
	}
	// Committed: from here the forget is finished whatever happens to ctx
	// (a Ctrl-C now would leave it for the next command to finish, and
	// the user told "interrupted" of a forget that was done).
	ctx = context.WithoutCancel(ctx)
	if err := rollForward(ctx, home, db, ix, j); err != nil {
		return Result{}, fmt.Errorf("forget: committed, but finishing it failed (the next command finishes it): %w", err)
	}
	if err := announce(ctx, home, db, func() time.Time { return now }); err != nil {
		return Result{}, fmt.Errorf("forget: done here, but not yet told to the other devices (the next forget tells them): %w", err)
	}
	return Result{ID: j.ID, Files: len(p.files) + len(p.journals), Rows: len(p.rows), Sessions: len(p.sessions), Index: p.indexHas}, nil
}

// commit makes the plan's changes to state.db and records the forget, in
// one transaction: the commit point.
func (p *Plan) commit(ctx context.Context, db *sql.DB, id string, now time.Time) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	defer tx.Rollback()
	for _, r := range p.rows {
		// Only a value still as it was listed: a chat or a revision may
		// have changed it while the user read the list, and the newer
		// words must not be overwritten with the old ones.
		set := "%s = ?1"
		if r.rehash {
			set = "%s = ?1, sha256 = ?3"
		}
		q := fmt.Sprintf(`UPDATE %s SET `+set+` WHERE rowid = ?2 AND %[2]s = ?4`, quoteIdent(r.table), quoteIdent(r.column))
		res, err := tx.ExecContext(ctx, q, r.value, r.rowid, revisions.Hash(r.value), r.old)
		if err != nil {
			return fmt.Errorf("forget: update %s.%s: %w", r.table, r.column, err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("forget: %s.%s row %d changed since it was listed; nothing was changed (run the command again)", r.table, r.column, r.rowid)
		}
		if r.recallAt >= 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET recall_at = ?1 WHERE rowid = ?2`, r.recallAt, r.rowid); err != nil {
				return fmt.Errorf("forget: update messages.recall_at: %w", err)
			}
		}
	}
	// A message's words changed length: the positions after it in its
	// session (core's window blocks, migration 0005) are counted again.
	for _, r := range p.rows {
		if r.table == "messages" && r.column == "content" {
			if _, err := tx.ExecContext(ctx, sqlRecountPositions, r.rowid); err != nil {
				return fmt.Errorf("forget: recount positions: %w", err)
			}
		}
	}
	if err := p.moveLoggedTurns(ctx, tx); err != nil {
		return err
	}
	for _, s := range p.sessions {
		for _, q := range []string{
			`DELETE FROM session_summaries WHERE session_id = ?1`,
			`DELETE FROM messages WHERE session_id = ?1`,
			`DELETE FROM sessions WHERE id = ?1`,
		} {
			if _, err := tx.ExecContext(ctx, q, s); err != nil {
				return fmt.Errorf("forget: delete session: %w", err)
			}
		}
	}
	c := forgotten.Counts{Files: len(p.files) + len(p.journals), Rows: len(p.rows), Sessions: len(p.sessions)}
	if p.remote != "" {
		// Forgotten on another device: its row came with the journal; it
		// is done here now (the commit point of this device's part).
		if err := forgotten.DoneTx(ctx, tx, p.remote, c, now); err != nil {
			return fmt.Errorf("forget: record: %w", err)
		}
		return tx.Commit()
	}
	folded := ""
	if p.phrase != "" {
		folded = foldString(p.phrase)
	}
	if err := forgotten.RecordTx(ctx, tx, id, folded, c, now); err != nil {
		return fmt.Errorf("forget: record: %w", err)
	}
	return tx.Commit()
}

// moveLoggedTurns renumbers where core's messages say their turns were
// logged (messages.log_start, log_end) in a log whose lines the plan
// removes, so that a turn below a removed one is still found at its place.
func (p *Plan) moveLoggedTurns(ctx context.Context, tx *sql.Tx) error {
	for _, e := range p.files {
		if e.newLine == nil || !strings.HasPrefix(e.rel, "logs/") {
			continue
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, log_start, log_end FROM messages WHERE log_path = ?1`, e.rel)
		if err != nil {
			return fmt.Errorf("forget: read logged turns: %w", err)
		}
		type span struct {
			id         int64
			start, end int
		}
		var spans []span
		for rows.Next() {
			var s span
			if err := rows.Scan(&s.id, &s.start, &s.end); err != nil {
				rows.Close()
				return fmt.Errorf("forget: read logged turns: %w", err)
			}
			spans = append(spans, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("forget: read logged turns: %w", err)
		}
		for _, s := range spans {
			// A turn whose lines were removed keeps no place (0): it is
			// not in the log any more.
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET log_start = ?1, log_end = ?2 WHERE id = ?3`,
				e.newLine(s.start), e.newLine(s.end), s.id); err != nil {
				return fmt.Errorf("forget: move logged turns: %w", err)
			}
		}
	}
	return nil
}

// sqlRecountPositions counts chars_before again for the session of message
// ?1, as migration 0005 counted it for every session.
const sqlRecountPositions = `UPDATE messages SET chars_before = w.chars_before
FROM (SELECT id, COALESCE(sum(chars) OVER preceding, 0) AS chars_before
      FROM (SELECT id, session_id,
                   CASE WHEN role IN ('user', 'assistant') THEN length(CAST(content AS BLOB)) ELSE 0 END AS chars
            FROM messages WHERE session_id = (SELECT session_id FROM messages WHERE id = ?1))
      WINDOW preceding AS (PARTITION BY session_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS w
WHERE w.id = messages.id`

// Recover finishes or undoes a forget a killed process left: rolled
// forward when state.db says it committed, rolled back otherwise. Without
// a recovery file it costs one stat; with one it takes the memory lock, which a
// forget in progress holds from its first staged file to its end, so a
// recovery file is never judged while its forget is still running.
func Recover(ctx context.Context, home string, db *sql.DB, ix Index) error {
	if !Interrupted(home) {
		return nil
	}
	unlock, err := memory.Lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	return recoverLocked(ctx, home, db, ix)
}

// Interrupted says whether a forget in progress left its recovery file (one
// stat): Recover has work to do, and what the index and the files hold may
// not be what the forget leaves.
func Interrupted(home string) bool {
	_, err := os.Stat(filepath.Join(home, RecoveryDir))
	return !errors.Is(err, os.ErrNotExist)
}

// recoverLocked is Recover for a caller holding the memory lock.
func recoverLocked(ctx context.Context, home string, db *sql.DB, ix Index) error {
	b, err := os.ReadFile(filepath.Join(home, recoveryFile))
	if errors.Is(err, os.ErrNotExist) {
		// A recovery file never written: staged files alone are left-overs.
		if _, err := os.Stat(filepath.Join(home, RecoveryDir)); err == nil {
			return os.RemoveAll(filepath.Join(home, RecoveryDir))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("forget: read %s: %w", recoveryFile, err)
	}
	var j recovery
	if err := json.Unmarshal(b, &j); err != nil {
		// A recovery file is put in place whole (rename): one that does not
		// parse was not ours to finish.
		return fmt.Errorf("forget: %s is damaged (%v); look at it, then remove %s", recoveryFile, err, RecoveryDir)
	}
	done, err := forgotten.Committed(ctx, db, j.ID)
	if err != nil {
		return err
	}
	if !done {
		return rollBack(home, j)
	}
	// Committed: from here the forget is finished whatever happens to ctx
	// (a Ctrl-C now would leave it for the next command to finish, and
	// the user told "interrupted" of a forget that was done).
	ctx = context.WithoutCancel(ctx)
	if err := rollForward(ctx, home, db, ix, j); err != nil {
		return err
	}
	return announce(ctx, home, db, time.Now)
}

// rollBack removes what a forget that did not commit staged.
func rollBack(home string, j recovery) error {
	if err := os.RemoveAll(filepath.Join(home, RecoveryDir)); err != nil {
		return fmt.Errorf("forget: roll back: %w", err)
	}
	return syncDir(home)
}

// rollForward puts every staged file in place, rebuilds the index and
// checkpoints state.db, then removes the journal. Each step can run again.
func rollForward(ctx context.Context, home string, db *sql.DB, ix Index, j recovery) error {
	for _, f := range j.Files {
		staged := filepath.Join(home, RecoveryDir, f.Staged)
		if _, err := os.Stat(staged); errors.Is(err, os.ErrNotExist) {
			continue // renamed before a kill
		}
		target := filepath.Join(home, filepath.FromSlash(f.Rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return fmt.Errorf("put %s in place: %w", f.Rel, err)
		}
		if err := os.Rename(staged, target); err != nil {
			return fmt.Errorf("put %s in place: %w", f.Rel, err)
		}
		if err := syncDir(filepath.Dir(target)); err != nil {
			return err
		}
	}
	for _, f := range j.Files {
		if f.From == "" {
			continue
		}
		old := filepath.Join(home, filepath.FromSlash(f.From))
		if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", f.From, err)
		}
		if err := syncDir(filepath.Dir(old)); err != nil {
			return err
		}
	}
	if j.Journals {
		if _, err := rewriteJournals(ctx, home, db, j.ID); err != nil {
			return err
		}
	}
	if ix != nil {
		units := make([][]byte, 0, len(j.Units))
		for _, u := range j.Units {
			if b, err := hex.DecodeString(u); err == nil {
				units = append(units, b)
			}
		}
		if err := ix.Purge(ctx, units); err != nil {
			return err
		}
	}
	// What the transaction overwrote is zeroed in the database (secure
	// delete); a checkpoint moves it out of the WAL, truncated to nothing.
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint state.db: %w", err)
	}
	if err := os.RemoveAll(filepath.Join(home, RecoveryDir)); err != nil {
		return err
	}
	return syncDir(home)
}

// stage writes a file's new content into the journal folder, synced, with
// the mode of the file it replaces.
func stage(home, rel, name string, data []byte) error {
	mode := os.FileMode(0o600)
	if st, err := os.Stat(filepath.Join(home, filepath.FromSlash(rel))); err == nil {
		mode = st.Mode().Perm()
	}
	path := filepath.Join(home, RecoveryDir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("forget: stage %s: %w", rel, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("forget: stage %s: %w", rel, err)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("forget: stage %s: %w", rel, err)
	}
	return f.Close()
}

// writeJournal puts the journal in place whole (temp file, sync, rename),
// then syncs its folder so the rename itself is on disk.
func writeRecovery(home string, j recovery) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := renameio.WriteFile(filepath.Join(home, recoveryFile), b, 0o600); err != nil {
		return fmt.Errorf("forget: journal: %w", err)
	}
	return syncDir(filepath.Join(home, RecoveryDir))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// announce journals this device's forgets not yet told to the other
// devices: the row's id, and its salt, HMAC under the forget key, length
// and key id, never the phrase. Once each: a crash between the line and
// the flag writes it again, which the other devices apply once (by the
// row's id).
func announce(ctx context.Context, home string, db *sql.DB, clock func() time.Time) error {
	values, order, err := forgotten.Unannounced(ctx, db)
	if err != nil {
		return err
	}
	for _, id := range order {
		v, err := json.Marshal(values[id])
		if err != nil {
			return err
		}
		if err := jrnl.Record(ctx, db, home, clock, jrnl.KindForget, id, "forget", v); err != nil {
			return err
		}
		if err := forgotten.Announced(ctx, db, id); err != nil {
			return err
		}
	}
	return nil
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
