package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long Watch waits after the last event before
// reporting: an editor's save is several events (write temp, rename, chmod),
// and a burst of them should cost one reindex.
const DefaultDebounce = 200 * time.Millisecond

// WatchOptions tunes Watch.
type WatchOptions struct {
	Debounce time.Duration // 0 means DefaultDebounce
	// OnChange receives the workspace-relative paths that changed (created,
	// written, renamed or removed) in one debounced batch, sorted. It runs on
	// Watch's goroutine; events arriving meanwhile wait for the next batch.
	OnChange func(paths []string)
	// OnError receives problems that do not stop watching (a directory that
	// could not be watched, an overflowed event queue). May be nil.
	OnError func(error)
	// onReady lets tests know the watches are in place before they write.
	onReady func()
	// onEvent tells tests that a relevant event (of file name) has just
	// restarted the debounce timer.
	onEvent func(name string)
}

// Watch reports changes to MEMORY.md and to the markdown files under logs/
// until ctx is cancelled, then returns nil. It watches directories, not
// files, so editors that save by writing a new file and renaming it over the
// old one are seen, and so is a logs/ directory created after Watch started.
func Watch(ctx context.Context, home string, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.OnError == nil {
		opts.OnError = func(error) {}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", home, err)
	}
	defer fw.Close()
	w := &watcher{home: home, fw: fw, opts: opts, pending: map[string]bool{}}
	if err := fw.Add(home); err != nil {
		return fmt.Errorf("watch %s: %w", home, err)
	}
	w.addTree(filepath.Join(home, logsDir))
	if opts.onReady != nil {
		opts.onReady()
	}

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if w.event(ev) {
				timer.Reset(opts.Debounce)
				if opts.onEvent != nil {
					opts.onEvent(ev.Name)
				}
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: say "everything may have changed".
				w.pending[logsDir+"/"] = true
				timer.Reset(opts.Debounce)
			}
			opts.OnError(err)
		case <-timer.C:
			paths := make([]string, 0, len(w.pending))
			for p := range w.pending {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			clear(w.pending)
			if opts.OnChange != nil && len(paths) > 0 {
				opts.OnChange(paths)
			}
		}
	}
}

type watcher struct {
	home    string
	fw      *fsnotify.Watcher
	opts    WatchOptions
	pending map[string]bool
}

// event records a relevant event and reports whether it was one.
func (w *watcher) event(ev fsnotify.Event) bool {
	rel, err := filepath.Rel(w.home, ev.Name)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if rel == logsDir || strings.HasPrefix(rel, logsDir+"/") {
		if ev.Has(fsnotify.Create) {
			if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
				// A new directory (logs/ itself, or a subfolder): watch it,
				// and report the files it may already hold.
				w.addTree(ev.Name)
				w.pending[rel+"/"] = true
				return true
			}
		}
		if hidden(rel) || !strings.HasSuffix(rel, ".md") {
			// A removed or renamed directory is reported as a change too.
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				if !hidden(rel) {
					w.pending[rel] = true
					return true
				}
			}
			return false
		}
		w.pending[rel] = true
		return true
	}
	if rel == memoryFile {
		w.pending[rel] = true
		return true
	}
	return false
}

// hidden says whether any element of a slash path starts with a dot:
// editors' temp and swap files, version-control directories.
func hidden(rel string) bool {
	for _, p := range strings.Split(rel, "/") {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	return false
}

// addTree watches dir and every directory under it. Symlinked directories
// are not followed (fsnotify would watch their target, possibly outside the
// workspace, possibly in a loop).
func (w *watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				w.opts.OnError(err)
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.fw.Add(p); err != nil {
			w.opts.OnError(fmt.Errorf("watch %s: %w", p, err))
		}
		return nil
	})
}
