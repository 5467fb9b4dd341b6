package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"agent/memory/printable"
)

// Result says what a replay did.
type Result struct {
	Files   int // journals read (changed since the last look)
	Applied int // entries that set a record
	Lost    int // entries older than the record's value: kept in history
	Seen    int // entries applied before (a file read again)
	Bad     int // complete lines refused: not entries, or changes checked and refused
	// Deferred counts the lines not applied for an error that is not the
	// line's (apply): neither applied nor refused, read again next time.
	Deferred int
	// Refused names each refused line once, where it is and why (a line
	// read again, from a journal replaced, is not named again), and each
	// deferred line every time it is deferred (Later).
	Refused []Refusal
}

// Refusal is a journal line not applied, and why.
type Refusal struct {
	File  string // the journal's name in Dir
	Line  int    // from 1
	Why   string
	Later bool // not refused: deferred, tried again at the next replay
}

func (r Refusal) String() string {
	if r.Later {
		return fmt.Sprintf("%s/%s:%d: a change from another device not applied yet (tried again next time): %s", Dir, r.File, r.Line, r.Why)
	}
	return fmt.Sprintf("%s/%s:%d: a change from another device refused: %s", Dir, r.File, r.Line, r.Why)
}

// oneLine writes the breaks an escaped text keeps as escapes: a refusal
// is said on one line.
var oneLine = strings.NewReplacer("\n", `\n`, "\t", `\t`)

// MaxLine bounds a journal line: the largest change a device writes (a
// reminder's 500 characters, a job's command) is a few KB, and a line
// beyond this is refused unread.
const MaxLine = 64 << 10

type readState struct {
	size, mtime, offset int64
	hash                string
}

// Replay folds every other device's journal into state.db. A journal is
// read only when its size or mtime differ from the last look, and from
// where that look stopped when the bytes before it are unchanged; a last
// line without its newline is a write in progress (or cut by a crash) and
// is left for the next look. Each file is applied in one transaction with
// the note of how far it was read, and every entry is applied once.
func Replay(ctx context.Context, db *sql.DB, home string, now func() time.Time) (Result, error) {
	if now == nil {
		now = time.Now
	}
	var res Result
	dir := filepath.Join(home, Dir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("journal: %w", err)
	}
	// Which journal is this device's own: read without a write
	// transaction, unless it is to be made (first use, or state.db moved).
	var own, machine string
	switch err := db.QueryRowContext(ctx, qDevice).Scan(&own, new(string), &machine, new(int64), new(int64)); {
	case errors.Is(err, sql.ErrNoRows) || err == nil && machine != machineOf(home):
		d, err := DeviceOf(ctx, db, home)
		if err != nil {
			return res, fmt.Errorf("journal: %w", err)
		}
		own = d.ID
	case err != nil:
		return res, fmt.Errorf("journal: %w", err)
	}
	states, err := readStates(ctx, db)
	if err != nil {
		return res, err
	}
	for _, e := range ents {
		name := e.Name()
		if !isJournal(name) || name == own+".jsonl" || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		st, ok := states[name]
		if ok && st.size == info.Size() && st.mtime == info.ModTime().UnixNano() {
			continue
		}
		if err := replayFile(ctx, db, home, name, own, st, now, &res); err != nil {
			return res, err
		}
		res.Files++
	}
	return res, nil
}

func readStates(ctx context.Context, db *sql.DB) (map[string]readState, error) {
	rows, err := db.QueryContext(ctx, qReadStates)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	out := map[string]readState{}
	for rows.Next() {
		var name string
		var st readState
		if err := rows.Scan(&name, &st.size, &st.mtime, &st.offset, &st.hash); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out[name] = st
	}
	return out, rows.Err()
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func replayFile(ctx context.Context, db *sql.DB, home, name, own string, st readState, now func() time.Time, res *Result) error {
	path := filepath.Join(home, Dir, name)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	data, err := readAll(f, info.Size())
	if err != nil {
		return fmt.Errorf("journal: read %s: %w", path, err)
	}
	start := int64(0)
	if st.offset > 0 && st.offset <= int64(len(data)) && hashOf(data[:st.offset]) == st.hash {
		start = st.offset
	}
	end := int64(bytes.LastIndexByte(data, '\n') + 1)
	if end < start {
		end = start
	}
	return inTx(ctx, db, func(tx *sql.Tx) error {
		d, err := device(ctx, tx, home)
		if err != nil {
			return err
		}
		// A change made here and not yet appended (another process is
		// between its write and its Close) is stamped before the other
		// device's are seen: stamped after, it would sort after a newer
		// change that this replay is about to apply over it, and the two
		// devices would end with different values.
		if err := stamp(ctx, tx, &d, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, qBeginApplying); err != nil {
			return err
		}
		a := applier{tx: tx, now: now()}
		defer a.close()
		n := bytes.Count(data[:start], []byte{'\n'})
		refuse := func(line []byte, why error) error {
			res.Bad++
			r, err := tx.ExecContext(ctx, qRefused, hashOf(line))
			if err != nil {
				return err
			}
			if k, _ := r.RowsAffected(); k > 0 {
				res.Refused = append(res.Refused, Refusal{File: name, Line: n, Why: oneLine.Replace(printable.Escape(why.Error()))})
			}
			return nil
		}
		// read is where the next replay starts: the end, or the first
		// line deferred (the lines after it are marked applied and cost
		// a lookup each when read again).
		read, pos := end, start
		for line := range bytes.Lines(data[start:end]) {
			n++
			at := pos
			pos += int64(len(line))
			e, err := parseEntry(line, a.now)
			if err != nil {
				if err := refuse(line, err); err != nil {
					return err
				}
				continue
			}
			if e.HLC.Device == own {
				continue
			}
			d.see(e.HLC)
			refused, deferred, err := a.apply(ctx, e, res)
			if err != nil {
				return fmt.Errorf("journal: %s: %s %s: %w", name, e.Kind, printable.Escape(e.Key), err)
			}
			if deferred != nil {
				res.Deferred++
				read = min(read, at)
				why := fmt.Errorf("%s %q: %w", e.Kind, e.Key, deferred)
				res.Refused = append(res.Refused, Refusal{File: name, Line: n, Why: oneLine.Replace(printable.Escape(why.Error())), Later: true})
			}
			if refused != nil {
				if err := refuse(line, fmt.Errorf("%s %q: %w", e.Kind, e.Key, refused)); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, qEndApplying); err != nil {
			return err
		}
		if err := d.save(ctx, tx); err != nil {
			return err
		}
		size := info.Size()
		if read < end {
			size = -1 // read again at the next look, though unchanged
		}
		_, err = tx.ExecContext(ctx, qSetRead, name, size, info.ModTime().UnixNano(), read, hashOf(data[:read]))
		return err
	})
}

// readAll reads a file whose size is known without growing a buffer.
func readAll(f *os.File, size int64) ([]byte, error) {
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && n < len(buf) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

// parseEntry reads one line as an entry and checks what every entry must
// be, whatever its kind: at most MaxLine, JSON, a stamp within the bounds
// at now (HLC.inBounds), a known kind, a key, an operation and a device
// name of one short printable line. What a record may hold is its owner's
// to check (profile, reminders, jobs, forgotten).
func parseEntry(line []byte, now time.Time) (Entry, error) {
	var e Entry
	if len(line) > MaxLine {
		return e, fmt.Errorf("a line of %d bytes; at most %d", len(line), MaxLine)
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return e, errors.New("not a journal entry")
	}
	switch {
	case !e.HLC.inBounds(now):
		return e, fmt.Errorf("its clock (%d.%d.%s) is more than a day ahead of this device's, or not a clock",
			e.HLC.MS, e.HLC.C, printable.Escape(e.HLC.Device))
	case !slices.Contains([]string{KindProfile, KindReminder, KindJob, KindForget}, e.Kind):
		return e, fmt.Errorf("an unknown kind of record %q", printable.Escape(e.Kind))
	case e.Key == "" || len(e.Key) > 256:
		return e, errors.New("no key, or a key of more than 256 bytes")
	case !isWord(e.Op, 16):
		return e, fmt.Errorf("an operation %q that is not a word", printable.Escape(e.Op))
	case !isName(e.Host, 64):
		return e, fmt.Errorf("a device name %q that is not one printable line of at most 64 characters", printable.Escape(e.Host))
	}
	return e, nil
}

// isWord: 1 to max lower-case letters.
func isWord(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// isName: one printable line of 1 to max characters (a hostname).
func isName(s string, max int) bool {
	return s != "" && utf8.ValidString(s) && utf8.RuneCountInString(s) <= max && printable.Escape(s) == s && !strings.ContainsAny(s, "\t\r\n")
}
