package devsync

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/renameio/v2"

	"agent/core/journal"
	"agent/memory"
	"agent/memory/printable"
)

// Folded is a conflict copy merged into its original.
type Folded struct {
	Copy      string `json:"copy"` // workspace slash paths
	Into      string `json:"into"`
	Conflicts int    `json:"conflicts"`
}

// FoldCopies merges the conflict copies a file-sync tool (Syncthing,
// Dropbox, iCloud, OneDrive) left of the daily logs, MEMORY.md, SOUL.md and
// the journals into their originals, by the merge rules of Merge without a
// base (every line of both kept), then removes them. It costs a listing of
// the top folder and a stat of the two others where such copies appear
// (listed only when changed), so every command can run it first. A copy
// that cannot be merged is left where it is and reported.
func FoldCopies(home string) ([]Folded, error) {
	var out []Folded
	var errs []error
	seen := loadSeen(home)
	changed := false
	for _, dir := range []string{".", "logs", JournalDir} {
		abs := filepath.Join(home, filepath.FromSlash(dir))
		// Taken before the listing: a copy made during it changes the
		// folder's stamp again, and is listed next time. The top folder is
		// listed every time: each command changes its stamp (SQLite's
		// state.db-wal and -shm come and go there), so a stamp remembered
		// for it would never match and only cost a write of the seen file.
		stamp, settled := "", false
		if dir != "." {
			stamp, settled = folderStamp(abs)
		}
		if stamp != "" && seen[dir] == stamp {
			continue // listed before, no copy in it, no entry added or removed since
		}
		f, err := os.Open(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		clean := true
		for _, name := range names {
			if _, ok := memory.ConflictCopyOf(name); ok {
				clean = false
				break
			}
		}
		if clean && settled && seen[dir] != stamp {
			seen[dir], changed = stamp, true
		}
		for _, name := range names {
			orig, ok := memory.ConflictCopyOf(name)
			if !ok {
				continue
			}
			rel, copyRel := path.Join(dir, orig), path.Join(dir, name)
			if dir == "." && (strings.HasPrefix(orig, "state.db") || strings.HasPrefix(orig, "index.db")) {
				errs = append(errs, fmt.Errorf("%s is a file-sync tool's copy of %s: the tool shares this machine's databases, which breaks them (SQLite copied mid-write) and conflicts on every run; exclude state.db* and index.db* from it (Syncthing: two lines in .stignore; Dropbox: mark them ignored) and share the workspace with agent sync; then delete %s", copyRel, orig, copyRel))
				continue
			}
			if !foldable(rel) || !memory.ExactConflictCopy(name) && !newerCopy(abs, name, orig) {
				continue
			}
			fo := Folded{Copy: copyRel, Into: rel}
			merge := func() error {
				var err error
				fo.Conflicts, err = fold(home, copyRel, rel)
				return err
			}
			// A journal is appended under its own lock (core/journal), the
			// memory files under memory's: the fold holds the one its
			// original's writers take.
			lock := memory.Locked
			if isJournal(rel) {
				lock = journal.Locked
			}
			err := lock(home, merge)
			if err != nil {
				errs = append(errs, fmt.Errorf("merge %s into %s: %w", printable.Escape(copyRel), printable.Escape(rel), err))
				continue
			}
			out = append(out, fo)
		}
	}
	if changed {
		saveSeen(home, seen)
	}
	return out, errors.Join(errs...)
}

// folderStamp identifies a folder's list of entries: its device, inode and
// modification time, which every entry added, removed or renamed changes.
// settled is false while the time is within two seconds of now: on a file
// system that keeps whole seconds a copy made later in the same second
// would leave the stamp as it was, so such a stamp is not remembered.
func folderStamp(abs string) (stamp string, settled bool) {
	fi, err := os.Stat(abs)
	if err != nil {
		return "", false
	}
	dev, ino := fileID(fi)
	mt := fi.ModTime()
	return fmt.Sprintf("%v:%v:%d", dev, ino, mt.UnixNano()), time.Since(mt) > 2*time.Second
}

// fileID is a file's device and inode (Linux and macOS both have them).
func fileID(fi fs.FileInfo) (dev, ino any) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Dev, st.Ino
	}
	return 0, 0
}

// seenFile is where this machine remembers the folder stamps FoldCopies
// found no copy under, keyed by workspace: in the user's cache folder, not
// the workspace, which a file-sync tool or git shares with other machines
// whose stamps differ. Without a cache folder every command lists.
func seenFile(home string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, "agent", "copies-seen", hex.EncodeToString(sum[:8]))
}

// loadSeen reads the remembered stamps; a missing or unreadable file is
// none remembered, which only costs a listing.
func loadSeen(home string) map[string]string {
	seen := map[string]string{}
	p := seenFile(home)
	if p == "" {
		return seen
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return seen
	}
	for _, line := range strings.Split(string(b), "\n") {
		if dir, stamp, ok := strings.Cut(line, "\t"); ok {
			seen[dir] = stamp
		}
	}
	return seen
}

// saveSeen writes the stamps atomically; failing to is harmless (the next
// command lists again), so it is not reported.
func saveSeen(home string, seen map[string]string) {
	p := seenFile(home)
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	var b strings.Builder
	for _, dir := range []string{"logs", JournalDir} {
		if st, ok := seen[dir]; ok {
			b.WriteString(dir + "\t" + st + "\n")
		}
	}
	_ = renameio.WriteFile(p, []byte(b.String()), 0o600)
}

// newerCopy says whether an iCloud-like copy (NAME 2.md, a name a person
// may choose too) is one: its original is there and it is newer, as a copy
// the tool made of a file changed elsewhere is. Otherwise it is the user's
// file and stays as it is.
func newerCopy(dir, name, orig string) bool {
	ci, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	oi, err := os.Lstat(filepath.Join(dir, orig))
	if err != nil || !oi.Mode().IsRegular() {
		return false
	}
	return ci.ModTime().After(oi.ModTime())
}

// foldable is a file a copy of which is merged: a workspace memory file.
func foldable(rel string) bool {
	return rel == "MEMORY.md" || rel == "SOUL.md" || isLog(rel) || isJournal(rel)
}

// fold merges the copy into the original (written atomically, its mode
// kept) and only then removes the copy; a missing original is the copy,
// renamed.
func fold(home, copyRel, rel string) (int, error) {
	cp, orig := filepath.Join(home, filepath.FromSlash(copyRel)), filepath.Join(home, filepath.FromSlash(rel))
	// Only regular files: a link would read, or write, a file outside
	// the workspace.
	if ci, err := os.Lstat(cp); err != nil {
		return 0, err
	} else if !ci.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file (a link?): left as it is", printable.Escape(copyRel))
	}
	theirs, err := os.ReadFile(cp)
	if err != nil {
		return 0, err
	}
	fi, err := os.Lstat(orig)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, os.Rename(cp, orig)
	}
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file (a link?): left as it is", printable.Escape(rel))
	}
	ours, err := os.ReadFile(orig)
	if err != nil {
		return 0, err
	}
	r := Merge(rel, nil, ours, theirs)
	if err := renameio.WriteFile(orig, r.Data, fi.Mode().Perm()); err != nil {
		return 0, err
	}
	return r.Conflicts, os.Remove(cp)
}
