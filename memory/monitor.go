package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Monitor answers "has MEMORY.md or anything under logs/ changed since I last
// asked?" without a stat walk, for a long-lived process (the chat REPL) that
// searches before every turn. It watches with inotify and, on each question,
// creates a uniquely named cookie file and reads events until that cookie's
// own event arrives: the kernel queues events in order, so every change made
// before the question has been seen by then. Where events cannot be trusted
// to cover everything (a symlink in the tree, a lost event), it answers
// "changed", and the caller walks the files as it would without a monitor.
type Monitor struct {
	mu      sync.Mutex
	home    string
	fw      *fsnotify.Watcher
	seq     int
	pending bool // a change seen and not yet reported
	blind   bool // the tree has links the watch cannot follow: always "changed"
}

const cookiePrefix = ".monitor-cookie-"

// cookieWait bounds the wait for a cookie's event; past it the answer is
// "changed", which is always safe.
const cookieWait = time.Second

// NewMonitor starts watching home. Its first answer is always "changed", so
// the caller's first refresh covers whatever happened before it started.
func NewMonitor(home string) (*Monitor, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("monitor %s: %w", home, err)
	}
	m := &Monitor{home: home, fw: fw, pending: true}
	if err := fw.Add(home); err != nil {
		fw.Close()
		return nil, fmt.Errorf("monitor %s: %w", home, err)
	}
	if fi, err := os.Lstat(filepath.Join(home, memoryFile)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		m.blind = true // its target's changes raise no event here
	}
	m.addTree(filepath.Join(home, logsDir))
	m.addTree(filepath.Join(home, digestsDir))
	return m, nil
}

// addTree watches dir and the directories below it. A symlink anywhere in
// the tree, dir itself included, makes the monitor blind: what it points at
// is not watched.
func (m *Monitor) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				m.blind = true
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			m.blind = true
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if err := m.fw.Add(p); err != nil {
			m.blind = true
		}
		return nil
	})
}

// Changed reports whether anything the index reads may have changed since
// the previous call (true on the first call, and whenever unsure).
func (m *Monitor) Changed() (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	name := cookiePrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(m.seq)
	cookie := filepath.Join(m.home, name)
	f, err := os.OpenFile(cookie, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return true, fmt.Errorf("monitor %s: %w", m.home, err)
	}
	f.Close()
	defer os.Remove(cookie)
	timeout := time.NewTimer(cookieWait)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-m.fw.Events:
			if !ok {
				return true, nil
			}
			if filepath.Base(ev.Name) == name {
				changed := m.pending || m.blind
				m.pending = false
				return changed, nil
			}
			m.note(ev)
		case _, ok := <-m.fw.Errors:
			// A lost event (queue overflow) or a failed watch: no longer sure.
			m.pending = true
			if !ok {
				return true, nil
			}
		case <-timeout.C:
			return true, nil
		}
	}
}

// note records an event if it concerns MEMORY.md or the logs tree, and
// watches directories that appear there.
func (m *Monitor) note(ev fsnotify.Event) {
	rel, err := filepath.Rel(m.home, ev.Name)
	if err != nil {
		m.pending = true
		return
	}
	rel = filepath.ToSlash(rel)
	switch {
	case rel == memoryFile:
		m.pending = true
	case inNoteDir(rel):
		m.pending = true
		if ev.Op&fsnotify.Create != 0 {
			if fi, err := os.Lstat(ev.Name); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
				m.addTree(ev.Name) // a link makes the monitor blind
			}
		}
	}
}

// Close stops watching.
func (m *Monitor) Close() error { return m.fw.Close() }
