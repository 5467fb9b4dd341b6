package journal

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"agent/memory/secrets"
)

// Flush appends the changes the triggers caught to this device's journal.
// It stamps them first (and commits the stamps), then appends them under a
// lock on the file and fsyncs before taking them off the outbox: a crash
// between the two writes the same stamped lines again, which a replay
// applies once. With nothing to write it costs one indexed query.
func Flush(ctx context.Context, db *sql.DB, home string, now func() time.Time) error {
	return flush(ctx, db, home, now, (*os.File).Sync)
}

// flush is Flush with the fsync of the append as a seam: a test fails it,
// as a power loss would, or counts it.
func flush(ctx context.Context, db *sql.DB, home string, now func() time.Time, sync func(*os.File) error) error {
	if now == nil {
		now = time.Now
	}
	var one int
	switch err := db.QueryRowContext(ctx, qAnyOutbox).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("journal: %w", err)
	}
	var d Device
	err := inTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		if d, err = device(ctx, tx, home); err != nil {
			return err
		}
		return stamp(ctx, tx, &d, now)
	})
	if err != nil {
		return fmt.Errorf("journal: stamp changes: %w", err)
	}
	file := fileOf(home, d.ID)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return Locked(home, func() error {
		_, statErr := os.Stat(file)
		lines, last, err := stampedLines(ctx, db, d)
		if err != nil || len(lines) == 0 {
			return err
		}
		if err := appendLines(file, lines, errors.Is(statErr, fs.ErrNotExist), sync); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if _, err := db.ExecContext(ctx, qDeleteWritten, last); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		return nil
	})
}

// Record appends one entry made here outside the triggers (a forget, which
// core/forget journals itself once its commit is done): stamped above
// every stamp seen, marked applied here, appended under the lock.
func Record(ctx context.Context, db *sql.DB, home string, now func() time.Time, kind, key, op string, value json.RawMessage) error {
	if now == nil {
		now = time.Now
	}
	var d Device
	var h HLC
	err := inTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		if d, err = device(ctx, tx, home); err != nil {
			return err
		}
		h = d.next(now())
		if _, err := tx.ExecContext(ctx, qMarkApplied, h.String()); err != nil {
			return err
		}
		return d.save(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("journal: stamp: %w", err)
	}
	line, err := json.Marshal(Entry{HLC: h, Host: d.Name, Kind: kind, Key: key, Op: op, Value: value})
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	file := fileOf(home, d.ID)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return Locked(home, func() error {
		_, statErr := os.Stat(file)
		if err := appendLines(file, append(line, '\n'), errors.Is(statErr, fs.ErrNotExist), (*os.File).Sync); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		return nil
	})
}

// LockFile orders every write to the journals in sync/journal: this
// device's appends, and anything that rewrites a journal (the merge of a
// file-sync tool's conflict copy). It is a file of its own at the top of
// the workspace, machine-local like the other .*.lock files, rather than a
// lock on the journal itself, which a rename would leave behind.
const LockFile = ".journal.lock"

// Locked runs fn holding LockFile.
func Locked(home string, fn func() error) error {
	lock := flock.New(filepath.Join(home, LockFile), flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("journal: lock: %w", err)
	}
	defer lock.Unlock()
	return fn()
}

// stamp gives each unstamped change its clock stamp, in the order made, and
// records it as this record's latest change and as applied here.
func stamp(ctx context.Context, tx *sql.Tx, d *Device, now func() time.Time) error {
	rows, err := tx.QueryContext(ctx, qUnstamped)
	if err != nil {
		return err
	}
	type pending struct {
		id        int64
		kind, key string
	}
	var list []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.id, &p.kind, &p.key); err != nil {
			rows.Close()
			return err
		}
		list = append(list, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range list {
		h := d.next(now()).String()
		if _, err := tx.ExecContext(ctx, qStampOutbox, h, p.id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, qSetClock, p.kind, p.key, h); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, qMarkApplied, h); err != nil {
			return err
		}
	}
	return d.save(ctx, tx)
}

// stampedLines renders the stamped outbox as journal lines, secrets
// redacted, and returns the last outbox id they cover.
func stampedLines(ctx context.Context, db *sql.DB, d Device) ([]byte, int64, error) {
	rows, err := db.QueryContext(ctx, qStamped)
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var buf bytes.Buffer
	var last int64
	for rows.Next() {
		var e Entry
		var value sql.NullString
		var h string
		if err := rows.Scan(&last, &e.Kind, &e.Key, &e.Op, &value, &h); err != nil {
			return nil, 0, fmt.Errorf("journal: %w", err)
		}
		if e.HLC, err = parseHLC(h); err != nil {
			return nil, 0, fmt.Errorf("journal: outbox %d: %w", last, err)
		}
		e.Host = d.Name
		if value.Valid {
			if e.Value, err = redact(value.String); err != nil {
				return nil, 0, fmt.Errorf("journal: outbox %d: %w", last, err)
			}
		}
		line, err := json.Marshal(e)
		if err != nil {
			return nil, 0, fmt.Errorf("journal: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	return buf.Bytes(), last, nil
}

// redact replaces every secret in the value's strings (a profile value, a
// reminder's text, a job's arguments) by its marker: what travels is
// written to a file another machine reads.
func redact(value string) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return nil, err
	}
	v = redactAny(v)
	return json.Marshal(v)
}

func redactAny(v any) any {
	switch x := v.(type) {
	case string:
		r, _ := secrets.Redact(x)
		return r
	case []any:
		for i := range x {
			x[i] = redactAny(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = redactAny(x[k])
		}
	}
	return v
}

// appendLines appends whole lines to a journal and fsyncs it (with sync).
// A last line cut short by a crash (no newline) is closed first, so it
// stays one bad line that readers skip instead of gluing itself to the
// next entry.
func appendLines(file string, lines []byte, created bool, sync func(*os.File) error) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if size := info.Size(); size > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], size-1); err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		if b[0] != '\n' {
			lines = append([]byte{'\n'}, lines...)
		}
	}
	if _, err := f.Write(lines); err != nil {
		return fmt.Errorf("append %s: %w", file, err)
	}
	if err := sync(f); err != nil {
		return fmt.Errorf("sync %s: %w", file, err)
	}
	if created {
		// A new file's name must survive a crash as its bytes do.
		if dir, err := os.Open(filepath.Dir(file)); err == nil {
			dir.Sync()
			dir.Close()
		}
	}
	return nil
}

func parseHLC(s string) (HLC, error) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return HLC{}, fmt.Errorf("bad stamp %q", s)
	}
	ms, err1 := strconv.ParseInt(parts[0], 10, 64)
	c, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || parts[2] == "" {
		return HLC{}, fmt.Errorf("bad stamp %q", s)
	}
	return HLC{MS: ms, C: c, Device: parts[2]}, nil
}
