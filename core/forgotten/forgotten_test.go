package forgotten

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"agent/core/statedb"
)

// A state.db made before keys (the forget set's first two migrations, a
// row with a plain hash) opens with this set: the keys and key_id are
// added, the old row reads as a plain one and is never told to another
// device.
func TestAStateDBFromBeforeKeysKeepsWorking(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "state.db")
	old := fstest.MapFS{}
	for _, n := range []string{"migrations/0001_forgotten.sql", "migrations/0002_travel.sql"} {
		b, err := fs.ReadFile(Migrations, n)
		if err != nil {
			t.Fatal(err)
		}
		old[n] = &fstest.MapFile{Data: b}
	}
	db, err := statedb.Open(ctx, file, true, []statedb.Set{{Component: "forget", Files: old}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO forgotten (id, kind, hash, salt, runes, files, rows, sessions, at)
		VALUES ('0011223344556677', 'phrase', 'ab', x'00', 5, 1, 0, 0, '2026-11-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = statedb.Open(ctx, file, false, []statedb.Set{{Component: "forget", Files: Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := Known(ctx, db)
	if err != nil || len(list) != 1 || list[0].KeyID != "" || list[0].Runes != 5 {
		t.Fatalf("the old row: %+v, %v", list, err)
	}
	told, _, err := Unannounced(ctx, db)
	if err != nil || len(told) != 0 {
		t.Errorf("a plain hash would travel: %v, %v", told, err)
	}
}

// ApplyTx refuses what no device of this version writes: a phrase shorter
// than MinRunes, a plain hash (no key), fields out of shape; a good one is
// recorded pending, and waits while its key is not here.
func TestApplyTxRefusesWhatNoDeviceWrites(t *testing.T) {
	ctx := context.Background()
	db, err := statedb.Open(ctx, filepath.Join(t.TempDir(), "state.db"), true, []statedb.Set{{Component: "forget", Files: Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	good := Value{Salt: strings.Repeat("0a", 16), MAC: strings.Repeat("0b", 32), Runes: 6, Key: strings.Repeat("0c", 8)}
	for name, v := range map[string]Value{
		"three characters": {Salt: good.Salt, MAC: good.MAC, Runes: 3, Key: good.Key},
		"a plain hash":     {Salt: good.Salt, MAC: good.MAC, Runes: 6},
		"a short salt":     {Salt: "00", MAC: good.MAC, Runes: 6, Key: good.Key},
		"a hash not hex":   {Salt: good.Salt, MAC: strings.Repeat("zz", 32), Runes: 6, Key: good.Key},
		"too long":         {Salt: good.Salt, MAC: good.MAC, Runes: 100000, Key: good.Key},
	} {
		if err := ApplyTx(ctx, db, "0011223344556677", v, time.Now()); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if err := ApplyTx(ctx, db, "../../etc", good, time.Now()); !errors.Is(err, ErrInvalid) {
		t.Errorf("a bad id: %v", err)
	}
	if err := ApplyTx(ctx, db, "0011223344556677", good, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, err := Waiting(ctx, db); err != nil || n != 1 {
		t.Errorf("waiting = %d, %v; want 1 (its key is not here)", n, err)
	}
	if has, err := HasPending(ctx, db); err != nil || has {
		t.Errorf("pending to apply without its key: %v, %v", has, err)
	}
}
