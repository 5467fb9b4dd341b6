package revisions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "state.db")+"?mode=rwc&_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	body, err := fs.ReadFile(Migrations, "migrations/0001_revisions.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(body)); err != nil {
		t.Fatal(err)
	}
	return db
}

var errNoSuch = errors.New("no such revision")

// A fourth revisioned file is a Kind and the calls below: here a
// "notes" kind of named files kept in a map instead of on disk.
func TestAKindOfNamedFiles(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	notes := New(db, Kind{Key: "notes", NotFound: func(name string, id int64) error {
		return fmt.Errorf("%w: note %s revision %d", errNoSuch, name, id)
	}}, nil)
	other := New(db, Kind{Key: "other", NotFound: func(string, int64) error { return errNoSuch }}, nil)
	disk := map[string]string{}
	// notice is what a kind does before each change: bring the history up
	// to the file as it is.
	notice := func(tx *Tx, name string) (int64, error) {
		content, ok := disk[name]
		return tx.Notice(name, content, ok)
	}
	save := func(name, content string, author Author, reason string) Revision {
		t.Helper()
		var rev Revision
		err := notes.Update(ctx, func(tx *Tx) error {
			if _, err := notice(tx, name); err != nil {
				return err
			}
			cur, ok, err := tx.Holds(name, content)
			if err != nil || ok {
				rev = cur
				return err
			}
			rev, err = tx.Record(name, content, author, reason, func() error { disk[name] = content; return nil })
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	history := func(name string) string {
		t.Helper()
		if err := notes.Update(ctx, func(tx *Tx) error { _, err := notice(tx, name); return err }); err != nil {
			t.Fatal(err)
		}
		h, err := notes.History(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, r := range h {
			lines = append(lines, fmt.Sprintf("%d %s %v %s", r.ID, r.Author, r.Removed, r.Reason))
		}
		return strings.Join(lines, "\n")
	}

	// A file that was there before any revision is the user's initial one.
	disk["a"] = "one\n"
	if r := save("a", "two\n", Agent, "line\nbreaks\tfolded"); r.ID != 2 || r.Reason != "line breaks folded" || disk["a"] != "two\n" {
		t.Fatalf("save = %+v", r)
	}
	// The same content again records nothing.
	if r := save("a", "two\n", Agent, "again"); r.ID != 2 {
		t.Fatalf("unchanged save = %+v", r)
	}
	// Numbers count per kind, across names.
	if r := save("b", "bee\n", User, "new"); r.ID != 3 {
		t.Fatalf("b = %+v", r)
	}
	if err := other.Update(ctx, func(tx *Tx) error {
		r, err := tx.Record("", "x", User, "first", nil)
		if err == nil && r.ID != 1 {
			err = fmt.Errorf("other kind's first revision is %d", r.ID)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// An editor's change, then a removal, then the file back.
	disk["a"] = "edited\n"
	delete(disk, "b")
	if got := history("a"); got != "4 user false edited outside agent\n2 agent false line breaks folded\n1 user false initial" {
		t.Fatalf("history a:\n%s", got)
	}
	if got := history("b"); got != "5 user true removed outside agent\n3 user false new" {
		t.Fatalf("history b:\n%s", got)
	}
	disk["b"] = "bee again\n"
	if got := history("b"); !strings.HasPrefix(got, "6 user false edited outside agent\n") {
		t.Fatalf("history b after it came back:\n%s", got)
	}
	// A failed write leaves no row.
	err := notes.Update(ctx, func(tx *Tx) error {
		_, err := tx.Record("a", "never\n", Agent, "fails", func() error { return errors.New("disk full") })
		return err
	})
	if err == nil || history("a")[:2] != "4 " {
		t.Fatalf("failed write: %v\n%s", err, history("a"))
	}
	// Unknown revisions, in the kind's own words; contents round trip.
	if _, err := notes.Get(ctx, "a", 3); !errors.Is(err, errNoSuch) || !strings.Contains(err.Error(), "note a revision 3") {
		t.Fatalf("Get of b's revision under a = %v", err)
	}
	if r, err := notes.Get(ctx, "a", 2); err != nil || r.Content != "two\n" || r.SHA256 != Hash("two\n") {
		t.Fatalf("Get = %+v, %v", r, err)
	}
}

func TestCheckReason(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"  saved\nby the\u200bmodel ", "saved by the model", ""},
		{"bad \xff", "", "the reason is not valid UTF-8"},
		{strings.Repeat("r", MaxReasonRunes), strings.Repeat("r", MaxReasonRunes), ""},
		{strings.Repeat("é", MaxReasonRunes+1), "", "the reason is 201 characters; the limit is 200"},
	} {
		got, err := CheckReason(tc.in)
		if tc.err != "" {
			if !errors.Is(err, ErrInvalid) || err.Error() != tc.err {
				t.Errorf("CheckReason(%.20q) = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CheckReason(%.20q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestDiff(t *testing.T) {
	got := Diff("SOUL.md@1", "a\nb\n", "SOUL.md@2", "a\nc\n")
	want := "diff SOUL.md@1 SOUL.md@2\n--- SOUL.md@1\n+++ SOUL.md@2\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
	if got != want {
		t.Fatalf("Diff =\n%s\nwant\n%s", got, want)
	}
	if got := Diff("a", "same\n", "b", "same\n"); got != "" {
		t.Fatalf("Diff of equal texts = %q, want empty", got)
	}
}
