package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	// sources are the notes folders outside the workspace (sources.json),
	// watched too; a hidden path inside one (.obsidian, .git) is not news.
	sources []string
	// cookies are the questions waiting for their cookie's event.
	cookies map[string]chan struct{}
	// changes is signalled (coalesced) when a memory file changes, or when
	// an event was lost, for a process that reacts to changes (memory watch).
	changes chan struct{}
	done    chan struct{} // the reader has stopped
}

// MonitorCookiePrefix names the files a Monitor makes and removes to mark a
// point in its stream of events; machine-local, like the monitor itself.
const MonitorCookiePrefix = ".monitor-cookie-"

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
	m := &Monitor{home: home, fw: fw, pending: true, cookies: map[string]chan struct{}{},
		changes: make(chan struct{}, 1), done: make(chan struct{})}
	if err := fw.Add(home); err != nil {
		fw.Close()
		return nil, fmt.Errorf("monitor %s: %w", home, err)
	}
	if fi, err := os.Lstat(filepath.Join(home, memoryFile)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		m.blind = true // its target's changes raise no event here
	}
	m.addTree(filepath.Join(home, logsDir), true)
	m.addTree(filepath.Join(home, digestsDir), true)
	m.addTree(filepath.Join(home, ImportsDir), true)
	m.addSources()
	go m.read()
	return m, nil
}

// read is the one reader of the watch's events, in the order the kernel
// queued them: a change is noted before any later cookie's question is
// answered, which is what makes the answer sure.
func (m *Monitor) read() {
	defer close(m.done)
	for {
		select {
		case ev, ok := <-m.fw.Events:
			if !ok {
				return
			}
			m.mu.Lock()
			if wait, ok := m.cookies[filepath.Base(ev.Name)]; ok {
				delete(m.cookies, filepath.Base(ev.Name))
				close(wait)
			} else if m.note(ev) {
				m.signal()
			}
			m.mu.Unlock()
		case _, ok := <-m.fw.Errors:
			if !ok {
				return
			}
			// A lost event (queue overflow) or a failed watch: no longer sure.
			m.mu.Lock()
			m.pending = true
			m.mu.Unlock()
			m.signal()
		}
	}
}

func (m *Monitor) signal() {
	select {
	case m.changes <- struct{}{}:
	default: // one signal pending is enough
	}
}

// Changes is signalled when MEMORY.md, a log or a digest may have changed
// (several changes may share one signal). Changed then says for sure.
func (m *Monitor) Changes() <-chan struct{} { return m.changes }

// addTree watches dir and the directories below it. A symlink anywhere in
// the tree, dir itself included, makes the monitor blind: what it points at
// is not watched.
func (m *Monitor) addTree(dir string, root bool) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if !errors.Is(err, fs.ErrNotExist) {
				m.blind = true
			}
		case (p != dir || !root) && strings.HasPrefix(d.Name(), "."):
			// Hidden names are never indexed (the walk skips them), so
			// nothing under them is watched: a .git or an import's
			// staging folder would only raise events for nothing. A
			// root (a source folder may be called .notes) is watched.
			if d.IsDir() {
				return filepath.SkipDir
			}
		case d.Type()&fs.ModeSymlink != 0:
			m.blind = true
		case d.IsDir():
			if err := m.fw.Add(p); err != nil {
				m.blind = true
			}
		}
		return nil
	})
}

// addSources watches every source folder but its hidden directories. One
// that is missing (an unmounted disk) cannot be watched for its return: the
// monitor is then blind, so every question walks the files.
func (m *Monitor) addSources() {
	list, err := LoadSources(m.home)
	if err != nil {
		m.blind = true
		return
	}
	for _, s := range list {
		real, err := filepath.EvalSymlinks(s.Dir)
		if err != nil {
			m.blind = true
			continue
		}
		m.sources = append(m.sources, real)
		m.addTree(real, true)
	}
}

// inSource reports whether an event's path is in a source folder and not
// hidden there; gone says it is a source folder itself, now removed.
func (m *Monitor) inSource(ev fsnotify.Event) (in, gone bool) {
	for _, dir := range m.sources {
		if !within(dir, ev.Name) {
			continue
		}
		rel, _ := filepath.Rel(dir, ev.Name)
		if rel == "." {
			return true, ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0
		}
		for _, el := range strings.Split(filepath.ToSlash(rel), "/") {
			if strings.HasPrefix(el, ".") {
				return false, false
			}
		}
		return true, false
	}
	return false, false
}

// Changed reports whether anything the index reads may have changed since
// the previous call (true on the first call, and whenever unsure). It
// creates a cookie file and waits for the reader to see its event: every
// change made before the question has been noted by then.
func (m *Monitor) Changed() (bool, error) {
	m.mu.Lock()
	m.seq++
	name := MonitorCookiePrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(m.seq)
	wait := make(chan struct{})
	m.cookies[name] = wait
	m.mu.Unlock()
	cookie := filepath.Join(m.home, name)
	f, err := os.OpenFile(cookie, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		m.forget(name)
		return true, fmt.Errorf("monitor %s: %w", m.home, err)
	}
	f.Close()
	defer os.Remove(cookie)
	timeout := time.NewTimer(cookieWait)
	defer timeout.Stop()
	select {
	case <-wait:
	case <-m.done:
		return true, nil
	case <-timeout.C:
		m.forget(name)
		return true, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	changed := m.pending || m.blind
	m.pending = false
	return changed, nil
}

func (m *Monitor) forget(name string) {
	m.mu.Lock()
	delete(m.cookies, name)
	m.mu.Unlock()
}

// note records an event if it concerns MEMORY.md, the logs or the digests,
// and watches directories that appear there; it says whether it did. The
// caller holds mu.
func (m *Monitor) note(ev fsnotify.Event) bool {
	rel, err := filepath.Rel(m.home, ev.Name)
	if err != nil {
		m.pending = true
		return true
	}
	rel = filepath.ToSlash(rel)
	switch {
	case rel == memoryFile:
		m.pending = true
		return true
	case rel == SourcesFile:
		// A source added or removed (agent memory sources): what the index
		// reads changed, and a new folder must be watched from now on.
		m.pending = true
		m.sources = nil
		m.addSources()
		return true
	case inNoteDir(rel):
		m.pending = true
		if ev.Op&fsnotify.Create != 0 {
			if fi, err := os.Lstat(ev.Name); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
				m.addTree(ev.Name, false) // a link makes the monitor blind
			}
		}
		return true
	}
	if in, gone := m.inSource(ev); in {
		m.pending = true
		m.blind = m.blind || gone // its return raises no event here
		if ev.Op&fsnotify.Create != 0 {
			if fi, err := os.Lstat(ev.Name); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
				m.addTree(ev.Name, false)
			}
		}
		return true
	}
	return false
}

// Close stops watching.
func (m *Monitor) Close() error {
	err := m.fw.Close()
	<-m.done
	return err
}
