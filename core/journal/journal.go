// Package journal makes the user-owned records of state.db — profile
// records, reminders and scheduled jobs — travel between devices as text:
// every change is appended to this device's own file in the workspace,
// sync/journal/<device>.jsonl, and every other device's file is folded into
// the local state.db by Replay, last writer winning by a hybrid logical
// clock and the loser kept in the record's history. Files travel by git or
// a file-sync tool; no two devices ever write the same file.
//
// Changes are caught by triggers in state.db (migrations/), in the
// transaction that makes them, into an outbox that Flush appends to the
// file: the stores that own the records need no hook, and a crash between
// the database and the file loses nothing. See docs/decisions-journal.md.
package journal

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Migrations are the journal's tables and triggers in state.db. They must
// come after the sets of profile, reminders and jobs, whose tables the
// triggers watch.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Dir is where the journals live, relative to the workspace.
const Dir = "sync/journal"

// Kinds of record.
const (
	KindProfile  = "profile"
	KindReminder = "reminder"
	KindJob      = "job"
	// KindForget is a phrase forgotten on a device (agent forget): key is
	// its forgotten row's id, value a forgotten.Value — an HMAC under the
	// workspace's forget key, never the phrase. Every device that holds
	// the key and replays it forgets the phrase too.
	KindForget = "forget"
)

// HLC is a hybrid logical clock stamp: wall-clock milliseconds, a counter
// for changes within the same millisecond (or made while the wall clock lags
// a stamp already seen), and the device, which breaks the last tie.
type HLC struct {
	MS     int64  `json:"ms"`
	C      int64  `json:"c"`
	Device string `json:"dev"`
}

// String is the stamp as text that sorts as the stamps do (fixed widths,
// which the bounds below keep).
func (h HLC) String() string { return fmt.Sprintf("%015d.%06d.%s", h.MS, h.C, h.Device) }

// Bounds on a stamp read from a journal: a clock more than MaxAhead ahead
// of this device's would win over every change made here until that time
// (a stamp of 2^63-1 would win forever and overflow the counter that
// follows it), and a counter past MaxCounter would not fit String's width,
// so text order would no longer be clock order.
const (
	MaxAhead   = 24 * time.Hour
	MaxCounter = 999_999
)

// after reports whether h is a later stamp than o, compared as numbers.
func (h HLC) after(o HLC) bool {
	if h.MS != o.MS {
		return h.MS > o.MS
	}
	if h.C != o.C {
		return h.C > o.C
	}
	return h.Device > o.Device
}

// inBounds says whether a stamp may be believed at now: a positive time no
// more than MaxAhead ahead, a counter within MaxCounter, a device id of hex
// digits.
func (h HLC) inBounds(now time.Time) bool {
	return h.MS > 0 && h.MS <= now.Add(MaxAhead).UnixMilli() && h.C >= 0 && h.C <= MaxCounter && validDevice(h.Device)
}

// wins reports whether h beats the stamp cur that set a record's value.
// A cur this device no longer believes (written before the bounds, beyond
// them: a poisoned clock) is beaten by any stamp, so a record it held heals.
func (h HLC) wins(cur string, now time.Time) bool {
	if cur == "" {
		return true
	}
	c, err := parseHLC(cur)
	if err != nil || !c.inBounds(now) {
		return true
	}
	return h.after(c)
}

func validDevice(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// Entry is one line of a journal.
type Entry struct {
	HLC   HLC             `json:"hlc"`
	Host  string          `json:"host"`            // the device's human name
	Kind  string          `json:"kind"`            // profile, reminder or job
	Key   string          `json:"key"`             // profile key, reminder uid, job name
	Op    string          `json:"op"`              // set, unset, add, done, snooze, fired, …
	Value json.RawMessage `json:"value,omitempty"` // absent: a tombstone
}

// Device is this workspace-on-this-machine.
type Device struct {
	ID, Name string
	clock    HLC
}

// device reads this device's row, making it on first use, and again when
// this state.db is a copy (machineOf differs; the clock is kept).
func device(ctx context.Context, tx *sql.Tx, home string) (Device, error) {
	var d Device
	var machine string
	err := tx.QueryRowContext(ctx, qDevice).Scan(&d.ID, &d.Name, &machine, &d.clock.MS, &d.clock.C)
	here := machineOf(home)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if d.ID, d.Name, err = newDevice(); err == nil {
			_, err = tx.ExecContext(ctx, qInsertDevice, d.ID, d.Name, here)
		}
	case err == nil && machine != here:
		if d.ID, d.Name, err = newDevice(); err == nil {
			_, err = tx.ExecContext(ctx, qRenewDevice, d.ID, d.Name, here)
		}
	}
	d.clock.Device = d.ID
	return d, err
}

func newDevice() (id, name string, err error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	name, _ = os.Hostname()
	if name == "" {
		name = "unknown"
	}
	return hex.EncodeToString(b[:]), name, nil
}

// machineOf says which copy of state.db this is: this machine's id
// (/etc/machine-id where there is one) and the file's identity (device and
// inode), which a copy never shares and which no spelling of the path, no
// symlink and no change of hostname alters. A workspace copied with its
// state.db to another machine must not keep the device id: two machines
// appending to one journal would conflict, and each would skip the other's
// changes as its own. (A state.db restored from a backup becomes a new
// device too, harmlessly: its old journal is read as another's, every line
// of it already applied.)
func machineOf(home string) string {
	var id string
	for _, f := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(f); err == nil && len(bytes.TrimSpace(b)) > 0 {
			id = string(bytes.TrimSpace(b))
			break
		}
	}
	file := filepath.Join(home, "state.db")
	if info, err := os.Stat(file); err == nil {
		if fid, ok := fileIdentity(info); ok {
			file = fid
		}
	}
	sum := sha256.Sum256([]byte(id + "\x00" + file))
	return hex.EncodeToString(sum[:8])
}

// DeviceOf returns this device's id and name, making them on first use.
func DeviceOf(ctx context.Context, db *sql.DB, home string) (Device, error) {
	var d Device
	err := inTx(ctx, db, func(tx *sql.Tx) error {
		var err error
		d, err = device(ctx, tx, home)
		return err
	})
	return d, err
}

// next is the stamp of a change made now: above every stamp seen. The
// counter stays within MaxCounter (the millisecond moves on instead), and a
// clock saved beyond the bounds (before they were kept) starts again from
// the wall clock.
func (d *Device) next(now time.Time) HLC {
	ms := now.UnixMilli()
	if !d.clock.inBounds(now) {
		d.clock = HLC{}
	}
	switch {
	case ms > d.clock.MS:
		d.clock = HLC{MS: ms}
	case d.clock.C >= MaxCounter:
		d.clock.MS, d.clock.C = d.clock.MS+1, 0
	default:
		d.clock.C++
	}
	d.clock.Device = d.ID
	return d.clock
}

// see moves the clock past a stamp read from another device, so the next
// change made here sorts after it whatever the two wall clocks say. Only a
// stamp within the bounds is seen (replay checks each).
func (d *Device) see(h HLC) {
	if h.MS > d.clock.MS || (h.MS == d.clock.MS && h.C > d.clock.C) {
		d.clock.MS, d.clock.C = h.MS, h.C
	}
}

func (d *Device) save(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, qSaveClock, d.clock.MS, d.clock.C)
	return err
}

// fileOf is the journal file of a device.
func fileOf(home, device string) string { return filepath.Join(home, Dir, device+".jsonl") }

// Sync is what a command does before it reads the records: append what
// this device changed and has not yet written (a crash may have left some),
// then replay what the other devices wrote since the last look.
func Sync(ctx context.Context, db *sql.DB, home string, now func() time.Time) (Result, error) {
	if err := Flush(ctx, db, home, now); err != nil {
		return Result{}, err
	}
	return Replay(ctx, db, home, now)
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// isJournal says whether a name in Dir is a journal (conflict copies made
// by a file-sync tool end in .jsonl too and are read like any other).
func isJournal(name string) bool {
	return strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, ".")
}
