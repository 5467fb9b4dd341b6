package mcptest

import (
	"strings"
	"sync"
)

// Notes collects the one-line notes a manager and a chat give the user;
// the servers' watchers give theirs from their own goroutines.
type Notes struct {
	mu    sync.Mutex
	lines []string
}

// Add records one note (use it as the Notify function).
func (n *Notes) Add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, s)
}

// String is every note so far, one per line.
func (n *Notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}
