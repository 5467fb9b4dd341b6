package forget_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/forget"
	"agent/core/forgotten"
	"agent/core/journal"
)

// holdsAnywhere says whether a journal holds phrase, as written or as JSON
// escapes it: each line is decoded and all its strings searched.
func holdsAnywhere(t *testing.T, data []byte, phrase string) bool {
	t.Helper()
	low := strings.ToLower(phrase)
	if strings.Contains(strings.ToLower(string(data)), low) {
		return true
	}
	for line := range bytes.Lines(data) {
		var v any
		if json.Unmarshal(line, &v) != nil {
			continue
		}
		var walk func(any) bool
		walk = func(v any) bool {
			switch x := v.(type) {
			case string:
				return strings.Contains(strings.ToLower(x), low)
			case []any:
				for _, y := range x {
					if walk(y) {
						return true
					}
				}
			case map[string]any:
				for _, y := range x {
					if walk(y) {
						return true
					}
				}
			}
			return false
		}
		if walk(v) {
			return true
		}
	}
	return false
}

// TestForgetRewritesTheJournals: a journal line holds the phrase the way
// JSON writes it ("&" as \u0026); the forget finds it in the decoded value,
// rewrites the line so it still reads as the same entry with the marker
// in its value, lists it in the plan, and leaves the other lines, and a
// field that only names the format ("host"), byte for byte.
func TestForgetRewritesTheJournals(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	other := `{"hlc":{"ms":1700000000000,"c":0,"dev":"0123456789abcdef"},"host":"desk","kind":"profile","key":"user.partner","op":"set","value":"Marta \u0026 Tom are expecting"}` + "\n"
	plain := `{"hlc":{"ms":1700000000001,"c":0,"dev":"0123456789abcdef"},"host":"desk","kind":"profile","key":"user.city","op":"set","value":"Lisbon"}` + "\n"
	torn := `{"hlc":{"ms":17000000000`
	write(t, home, journal.Dir+"/0123456789abcdef.jsonl", other+plain+torn)

	p, err := forget.Find(ctx, home, db, nil, "marta & tom")
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, pl := range p.Places {
		listed = listed || pl.Path == journal.Dir+"/0123456789abcdef.jsonl" && pl.Line == 1
	}
	if !listed {
		t.Errorf("the journal's line is not in the plan: %+v", p.Places)
	}
	res, err := p.Apply(ctx, home, db, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res.Files == 0 {
		t.Errorf("result counts no file: %+v", res)
	}
	got := read(t, home, journal.Dir+"/0123456789abcdef.jsonl")
	if holdsAnywhere(t, []byte(got), "marta & tom") {
		t.Errorf("the journal still holds the phrase:\n%s", got)
	}
	lines := strings.SplitAfter(got, "\n")
	if len(lines) != 3 || lines[1] != plain || lines[2] != torn {
		t.Errorf("the other lines changed:\n%q", lines)
	}
	var e journal.Entry
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Kind != "profile" || e.Key != "user.partner" ||
		e.HLC.MS != 1700000000000 || string(e.Value) != `"[forgotten] are expecting"` {
		t.Errorf("the rewritten line is not the same entry with the marker: %+v, %v", e, err)
	}

	// A word the format uses as a field's name is the user's only in values.
	p, err = forget.Find(ctx, home, db, nil, "host")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.SplitAfter(read(t, home, journal.Dir+"/0123456789abcdef.jsonl"), "\n")[:2] {
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Host != "desk" || e.Kind != "profile" {
			t.Errorf("a line lost its shape: %q", l)
		}
	}
}

// TestAForgetTravelsByItsHash: device A forgets a phrase that sits in a
// profile record both devices have (from A's journal) and in a message
// only device B has. A's journal carries the forget as its hash, never the
// phrase; B replays it, finds the phrase by that hash in its state.db and
// its journals, replaces it, records the row (so its imports skip it) and
// does not journal it as its own. Applied again, nothing changes.
func TestAForgetTravelsByItsHash(t *testing.T) {
	ctx := context.Background()
	const phrase = "Marta & Tom are expecting"
	aHome, aDB := workspace(t)
	bHome, bDB := workspace(t)
	if _, err := aDB.Exec(`INSERT INTO profile_records (key, scope, value, updated_at) VALUES ('user.pref.news', 'user', ?1, '2026-11-27T09:00:00Z')`, "news: "+phrase); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, aDB, aHome, nil); err != nil {
		t.Fatal(err)
	}
	share := func(from, to string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(from, journal.Dir, "*.jsonl"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			write(t, to, journal.Dir+"/"+filepath.Base(f), string(b))
		}
	}
	share(aHome, bHome)
	if _, err := journal.Sync(ctx, bDB, bHome, nil); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := bDB.QueryRow(`SELECT value FROM profile_records WHERE key = 'user.pref.news'`).Scan(&v); err != nil || !strings.Contains(v, phrase) {
		t.Fatalf("the record did not reach B (the test proves nothing): %q %v", v, err)
	}
	if _, err := bDB.Exec(`INSERT INTO sessions (id, name, created_at, updated_at) VALUES (77, 'desk-chat', 'x', 'x');
		INSERT INTO messages (session_id, role, content, created_at) VALUES (77, 'user', ?1, 'x')`, "did you hear? "+phrase); err != nil {
		t.Fatal(err)
	}

	p, err := forget.Find(ctx, aHome, aDB, nil, phrase)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, aHome, aDB, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := journal.Flush(ctx, aDB, aHome, nil); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(aHome, journal.Dir, "*.jsonl"))
	forgets := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if holdsAnywhere(t, b, phrase) {
			t.Errorf("A's journal %s holds the phrase", filepath.Base(f))
		}
		forgets += strings.Count(string(b), `"kind":"forget"`)
	}
	if forgets != 1 {
		t.Fatalf("A journalled %d forgets, want 1", forgets)
	}

	share(aHome, bHome)
	if _, err := journal.Sync(ctx, bDB, bHome, nil); err != nil {
		t.Fatal(err)
	}
	// B does not hold A's forget key yet: the forget waits, said, and
	// nothing is searched.
	if n, err := forgotten.Waiting(ctx, bDB); err != nil || n != 1 {
		t.Errorf("B without the key: %d forgets waiting, %v; want 1", n, err)
	}
	if has, err := forgotten.HasPending(ctx, bDB); err != nil || has {
		t.Errorf("B without the key has a forget to apply: %v, %v", has, err)
	}
	if ready, waiting, err := forgotten.Waits(ctx, bDB); err != nil || ready != 0 || waiting != 1 {
		t.Errorf("B without the key: Waits = %d ready, %d waiting, %v; want 0, 1", ready, waiting, err)
	}
	copyKey(t, aDB, bDB)
	if n, err := forgotten.Waiting(ctx, bDB); err != nil || n != 0 {
		t.Errorf("B with the key: %d forgets waiting, %v", n, err)
	}
	if ready, waiting, err := forgotten.Waits(ctx, bDB); err != nil || ready != 1 || waiting != 0 {
		t.Errorf("B with the key: Waits = %d ready, %d waiting, %v; want 1, 0", ready, waiting, err)
	}
	res, err := forget.ApplyPending(ctx, bHome, bDB, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Rows == 0 {
		t.Errorf("B's forget: %+v", res)
	}
	if err := bDB.QueryRow(`SELECT content FROM messages WHERE session_id = 77`).Scan(&v); err != nil || v != "did you hear? [forgotten]" {
		t.Errorf("B's message: %q %v", v, err)
	}
	if err := journal.Flush(ctx, bDB, bHome, nil); err != nil {
		t.Fatal(err)
	}
	checkNowhere(t, bHome, bDB, "marta & tom")
	var pending, journalled int
	if err := bDB.QueryRow(`SELECT pending, journalled FROM forgotten WHERE kind = 'phrase'`).Scan(&pending, &journalled); err != nil || pending != 0 || journalled != 1 {
		t.Errorf("B's row: pending %d, journalled %d, %v", pending, journalled, err)
	}
	f, err := forget.LoadForgotten(ctx, bDB)
	if err != nil || !f.Holds("an import says MARTA & TOM ARE EXPECTING") {
		t.Errorf("B's imports would not skip the phrase (%v)", err)
	}
	own, err := journal.DeviceOf(ctx, bDB, bHome)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(bHome, journal.Dir, own.ID+".jsonl")); strings.Contains(string(b), `"kind":"forget"`) {
		t.Errorf("B journalled A's forget as its own:\n%s", b)
	}
	again, err := forget.ApplyPending(ctx, bHome, bDB, nil, time.Now())
	if err != nil || len(again) != 0 {
		t.Errorf("applied again: %+v, %v", again, err)
	}
}

// copyKey gives device to the forget key of device from, as the user does
// (agent sync key there, agent sync key --add here).
func copyKey(t *testing.T, from, to *sql.DB) {
	t.Helper()
	ctx := context.Background()
	k, err := forgotten.Current(ctx, from, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	k, err = forgotten.ParseKey(k.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := forgotten.Add(ctx, to, k, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// checkNowhere: no journal of home holds phrase, and no byte of state.db
// (its WAL included, after a checkpoint) does.
func checkNowhere(t *testing.T, home string, db *sql.DB, phrase string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, journal.Dir, "*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if holdsAnywhere(t, b, phrase) {
			t.Errorf("%s holds the phrase:\n%s", filepath.Base(f), b)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	dbs, _ := filepath.Glob(filepath.Join(home, "state.db*"))
	for _, f := range dbs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(b)), phrase) {
			t.Errorf("%s holds the phrase", filepath.Base(f))
		}
	}
}

// TestAJournalAppendDuringAForgetIsKept: a line appended to a journal
// after the forget listed it (another command's close) is neither lost
// nor left holding the phrase: the journal is rewritten from what it holds
// at the commit, under the journal's lock.
func TestAJournalAppendDuringAForgetIsKept(t *testing.T) {
	home, db := workspace(t)
	ctx := context.Background()
	rel := journal.Dir + "/0123456789abcdef.jsonl"
	line := func(ms int, key, value string) string {
		return fmt.Sprintf(`{"hlc":{"ms":%d,"c":0,"dev":"0123456789abcdef"},"host":"desk","kind":"profile","key":%q,"op":"set","value":%q}`+"\n", 1700000000000+ms, key, value)
	}
	write(t, home, rel, line(1, "user.pref.a", "the door code is blue heron"))
	p, err := forget.Find(ctx, home, db, nil, "blue heron")
	if err != nil {
		t.Fatal(err)
	}
	later := line(2, "user.pref.b", "Blue Heron again") + line(3, "user.pref.c", "kept as it is")
	f, err := os.OpenFile(filepath.Join(home, rel), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(later)
	f.Close()
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	got := read(t, home, rel)
	if holdsAnywhere(t, []byte(got), "blue heron") {
		t.Errorf("the journal holds the phrase:\n%s", got)
	}
	if !strings.Contains(got, `"[forgotten] again"`) || !strings.HasSuffix(got, line(3, "user.pref.c", "kept as it is")) || strings.Count(got, "\n") != 3 {
		t.Errorf("the lines appended meanwhile are not all there:\n%s", got)
	}
}

// TestRecoverRollsBackAnotherDevicesForgetNotCommitted: applying another
// device's forget, the row is there from the replay (pending) before the
// commit; a kill before the commit must roll the staged files back, not
// put them in place, since the state.db half never happened.
func TestRecoverRollsBackAnotherDevicesForgetNotCommitted(t *testing.T) {
	home, db := workspace(t)
	before := read(t, home, "MEMORY.md")
	if _, err := db.Exec(`INSERT INTO forgotten (id, kind, hash, salt, runes, files, rows, sessions, at, pending, journalled)
		VALUES ('abc', 'phrase', 'ff', x'00', 3, 0, 0, 0, '2026-11-27T00:00:00Z', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	write(t, home, ".forget/1", "staged")
	write(t, home, ".forget/journal.json", `{"id":"abc","files":[{"rel":"MEMORY.md","staged":"1"}],"index":false}`)
	if err := forget.Recover(context.Background(), home, db, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, home, "MEMORY.md"); got != before {
		t.Errorf("MEMORY.md was replaced by the staged file: %q", got)
	}
	if _, err := os.Stat(filepath.Join(home, ".forget")); !os.IsNotExist(err) {
		t.Error("the journal folder is still there")
	}
}
