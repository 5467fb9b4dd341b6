//go:build !linux

package index

import (
	"context"
	"errors"
	"time"
)

// Vouching is built on Linux's directory handles (O_PATH) and inotify's
// guarantees; elsewhere a watcher keeps the index fresh but does not vouch,
// and every fresh search checks the files itself.

// ErrVouching means another watcher already answers for the workspace.
var ErrVouching = errors.New("another 'agent memory watch' is already keeping this index fresh")

// Vouch reports at once that this system cannot vouch.
func Vouch(ctx context.Context, home string, fresh func() error) error {
	return errors.New("vouching for freshness is supported on Linux only")
}

// vouched is always false: the asker walks.
func vouched(home string, wait time.Duration) bool { return false }
