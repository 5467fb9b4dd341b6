package index

import (
	"strings"
	"testing"
)

// The lock's protocol is its state: each move is allowed from one state
// only, and a move from another is an error naming both, not a silent
// flock call that would convert whatever is held.
func TestSwapLockProtocol(t *testing.T) {
	l := &swapLock{home: t.TempDir()}
	defer l.close()
	step := func(name string, move func() error, wantErr string, want lockState) {
		t.Helper()
		err := move()
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("%s: %v", name, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("%s = %v, want an error saying %q", name, err, wantErr)
		case l.state != want:
			t.Fatalf("after %s: %s, want %s", name, l.state, want)
		}
	}
	step("upgrade before hold", l.upgrade, "upgrade while unlocked (want shared)", unlocked)
	step("downgrade before hold", l.downgrade, "downgrade while unlocked (want exclusive)", unlocked)
	step("hold", l.hold, "", shared)
	step("hold again", l.hold, "hold while shared (want unlocked)", shared)
	step("downgrade while shared", l.downgrade, "downgrade while shared", shared)
	step("upgrade", l.upgrade, "", exclusive)
	step("upgrade again", l.upgrade, "upgrade while exclusive", exclusive)
	step("downgrade", l.downgrade, "", shared)
	l.release()
	if l.state != unlocked {
		t.Fatalf("after release: %s", l.state)
	}
	l.release() // releasing what is not held does nothing
	// Another descriptor (another process, as flock sees it) can take the
	// lock exclusive once this one has released it.
	other := &swapLock{home: l.home}
	defer other.close()
	step("hold after release", l.hold, "", shared)
	l.release()
	if err := other.hold(); err != nil {
		t.Fatal(err)
	}
	if err := other.upgrade(); err != nil {
		t.Fatal(err)
	}
	if err := other.downgrade(); err != nil {
		t.Fatal(err)
	}
	other.release()
}
