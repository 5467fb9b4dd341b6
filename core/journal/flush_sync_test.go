package journal_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"agent/core/journal"
	"agent/profile"
)

// A change leaves the outbox only once its journal line is on disk: the
// append is fsynced before the outbox row is deleted, and when the fsync
// fails (a power loss: the line may never reach the disk) the row stays,
// so the next flush appends it again and the other device still gets the
// change, once.
func TestFlushKeepsTheOutboxUntilTheJournalIsSynced(t *testing.T) {
	ctx := context.Background()
	a, b := newDevice(t), newDevice(t)
	if _, err := a.profile().Set(ctx, profile.ByUser("profile set"), "user.pref.door", "blue"); err != nil {
		t.Fatal(err)
	}
	outbox := func() int {
		var n int
		if err := a.ws.State.QueryRowContext(ctx, `SELECT count(*) FROM journal_outbox`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if outbox() == 0 {
		t.Fatal("the change is not in the outbox: the test looks in the wrong place")
	}
	errLost := errors.New("power lost")
	syncs := 0
	err := journal.FlushSyncingWith(ctx, a.ws.State, a.home, nil, func(f *os.File) error {
		syncs++
		if !strings.Contains(a.journalText(), "user.pref.door") {
			t.Error("fsync before the line was written")
		}
		return errLost
	})
	if !errors.Is(err, errLost) || syncs != 1 {
		t.Fatalf("flush with a failing fsync: %v after %d fsyncs, want the failure after one", err, syncs)
	}
	if outbox() == 0 {
		t.Fatal("the outbox row was deleted though the journal line was never synced")
	}
	syncs = 0
	err = journal.FlushSyncingWith(ctx, a.ws.State, a.home, nil, func(f *os.File) error {
		syncs++
		if outbox() == 0 {
			t.Error("the outbox row was deleted before the fsync")
		}
		return f.Sync()
	})
	if err != nil || syncs != 1 || outbox() != 0 {
		t.Fatalf("flush: %v after %d fsyncs, %d outbox rows left; want one fsync and none left", err, syncs, outbox())
	}
	a.sendTo(b)
	res, err := journal.Replay(ctx, b.ws.State, b.home, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 1 || b.get("user.pref.door") != "blue" {
		t.Errorf("replay on the other device: %+v, door %q; want the change applied once", res, b.get("user.pref.door"))
	}
}
