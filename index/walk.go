package index

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"agent/memory"
)

// Files the index covers, relative to the workspace.
const (
	memoryFile = "MEMORY.md"
	logsDir    = "logs"
	digestsDir = "digests" // weekly and monthly digests (core/distill)
)

// noteDirs are the directories of notes the index walks: the daily logs, the
// digests distilled from them and the imported chat histories.
var noteDirs = []string{logsDir, digestsDir, memory.ImportsDir}

// entry is one file the walk found: what it is and, for the manifest, its
// size and mtime. The walk never reads files.
type entry struct {
	rel     string // workspace-relative, slash-separated; "NAME:path" in a source
	target  string // for a followed symlink, the file it resolves to
	root    string // a source's folder (symlinks resolved); "" in the workspace
	size    int64
	mtimeNS int64
	problem string // set when the file must not be read at all
}

// path is where the entry's file is on disk.
func (e *entry) path(home string) string {
	switch {
	case e.target != "":
		return e.target
	case e.root != "": // a source's note: "NAME:rel" under its folder
		_, rel, _ := strings.Cut(e.rel, ":")
		return filepath.Join(e.root, filepath.FromSlash(rel))
	}
	return filepath.Join(home, filepath.FromSlash(e.rel))
}

// NoteFile is a note the index reads: its path as the index names it
// ("logs/2026-11-20.md", "vault:journal/birds.md") and where it is on disk.
type NoteFile struct {
	Rel, Path string
}

// Notes lists the notes the index reads, found by the walk every update
// makes (source folders and followed links included, hidden names and
// links out of bounds left out), for a check that must see what the index
// sees: agent doctor's scan for secrets.
func Notes(home string) ([]NoteFile, error) {
	ents, _, err := walk(home)
	if err != nil {
		return nil, err
	}
	var out []NoteFile
	for i := range ents {
		if e := &ents[i]; e.problem == "" {
			out = append(out, NoteFile{Rel: e.rel, Path: e.path(home)})
		}
	}
	return out, nil
}

// digest sums a hash of every entry's path, size, mtime and problem. Equal
// digests mean the walk saw exactly what the last update recorded, so
// nothing needs to be read from the manifest; the sum does not depend on the
// order the directory listed its files in.
type digest [2]uint64

func (d digest) bytes() []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, d[0])
	binary.LittleEndian.PutUint64(b[8:], d[1])
	return b
}

// walker lists MEMORY.md and logs/**/*.md with one fstatat per file on an
// open directory (the no-change refresh is nothing but this walk, so it is
// kept to getdents plus one stat per file). Hidden names are skipped: they are
// editors' temp and lock files, or version-control directories.
type walker struct {
	root    string          // the workspace or a source, symlinks resolved
	logs    string          // the directory links may lead into, symlinks resolved
	source  string          // the source being walked ("" in the workspace)
	visited map[string]bool // directories walked, by real path (symlink loops)
	out     []entry
	sum     digest
	trust   untrusted // why a watcher could not vouch for these files
}

func walk(home string) ([]entry, digest, error) {
	ents, sum, _, err := walkTrust(home)
	return ents, sum, err
}

// walkTrust is walk that also says why a watcher could not vouch for the
// files ("" when it could; see trust.go).
func walkTrust(home string) ([]entry, digest, string, error) {
	root, err := filepath.EvalSymlinks(home)
	if err != nil {
		return nil, digest{}, "", err
	}
	w := &walker{root: root, logs: filepath.Join(root, logsDir), visited: map[string]bool{}}
	w.trust.note(remotePath(home, "the workspace"))
	if l, err := filepath.EvalSymlinks(filepath.Join(home, logsDir)); err == nil {
		w.logs = l
	}
	var st unix.Stat_t
	switch err := unix.Lstat(filepath.Join(home, memoryFile), &st); {
	case err == nil:
		w.found(home, root, memoryFile, memoryFile, &st)
	case !errors.Is(err, unix.ENOENT):
		w.add(entry{rel: memoryFile, problem: "cannot stat: " + err.Error()})
	}
	for _, dir := range noteDirs {
		switch err := unix.Lstat(filepath.Join(home, dir), &st); {
		case err == nil:
			w.found(home, root, dir, dir, &st)
		case !errors.Is(err, unix.ENOENT):
			w.add(entry{rel: dir, problem: "cannot stat: " + err.Error()})
		}
	}
	sources, err := memory.LoadSources(home)
	if err != nil {
		return nil, digest{}, "", err
	}
	for _, s := range sources {
		w.walkSource(s, root)
	}
	return w.out, w.sum, w.trust.why, nil
}

// walkSource lists a notes folder outside the workspace (memory.Source) as
// "NAME:rel/path.md" entries. A folder that is gone (an unmounted disk) is
// one entry marked missing: the update keeps its notes' rows, so they stay
// searchable until it returns or the source is removed.
func (w *walker) walkSource(s memory.Source, realHome string) {
	prefix := s.Name + ":"
	real, gone := sourceFolder(s, realHome)
	if gone != nil {
		w.add(*gone)
		return
	}
	w.trust.note(remotePath(real, "source "+s.Name))
	w.root, w.logs, w.source = real, real, prefix
	w.dir(real, real, prefix)
	w.source = ""
}

// sourceFolder resolves a source's folder; when it is gone (or not a
// directory) it returns instead the one entry that stands for it, the same
// for walk and quickDigest, so a folder that stays gone leaves the digest
// as it was and costs no more than an unchanged one. A folder that
// overlaps the workspace (realHome, symlinks resolved) is one such entry
// too, its notes not read: agent memory sources add refuses one, but the
// folder may have been swapped for a link into the workspace since, and
// MEMORY.md or SOUL.md would be indexed again as notes.
func sourceFolder(s memory.Source, realHome string) (real string, gone *entry) {
	real, err := filepath.EvalSymlinks(s.Dir)
	var st unix.Stat_t
	if err == nil {
		err = unix.Stat(real, &st)
	}
	if err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		why := "not a directory"
		if err != nil {
			why = errText(err)
		}
		return "", &entry{rel: s.Name + ":", root: s.Dir, problem: missingPrefix + s.Dir + " (" + why + "); its notes stay searchable until it returns or the source is removed"}
	}
	if inside(realHome, real) || inside(real, realHome) {
		return "", &entry{rel: s.Name + ":", root: s.Dir, problem: "folder " + s.Dir + " overlaps the workspace (it leads to " + real + "): not indexed; point it elsewhere or remove it: agent memory sources remove " + s.Name}
	}
	return real, nil
}

// missingPrefix starts the problem of a source folder that is gone.
const missingPrefix = "folder missing: "

// missingSource is the source name of a walk entry standing for a folder
// that is gone, "" for any other entry.
func (e *entry) missingSource() string {
	if strings.HasSuffix(e.rel, ":") && strings.HasPrefix(e.problem, missingPrefix) {
		return e.rel
	}
	return ""
}

// inGoneSource says whether a note path lies in one of the source folders
// the walk found gone: its notes stay in the index until it returns.
func inGoneSource(ents []entry) func(rel string) bool {
	var gone []string // "NAME:" prefixes
	for i := range ents {
		if m := ents[i].missingSource(); m != "" {
			gone = append(gone, m)
		}
	}
	return func(rel string) bool {
		return slices.ContainsFunc(gone, func(m string) bool { return strings.HasPrefix(rel, m) })
	}
}

// childRel is the path of name inside the directory rel ("logs" or a
// source's "NAME:" prefix).
func childRel(rel, name string) string {
	if strings.HasSuffix(rel, ":") {
		return rel + name
	}
	return rel + "/" + name
}

// found handles one directory entry given its lstat; realDir is dir with
// symlinks resolved, for the loop check.
func (w *walker) found(dir, realDir, name, rel string, st *unix.Stat_t) {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if strings.HasSuffix(name, ".md") && !w.isCopy([]byte(name)) {
			w.add(entry{rel: rel, root: w.sourceRoot(), size: st.Size, mtimeNS: mtime(st)})
			if uint64(st.Nlink) > 1 {
				w.trust.note(hardLinked(rel, uint64(st.Nlink)))
			}
		}
	case unix.S_IFDIR:
		w.dir(filepath.Join(dir, name), filepath.Join(realDir, name), rel)
	case unix.S_IFLNK:
		w.symlink(filepath.Join(dir, name), name, rel, st)
	}
}

// dir walks a directory under logs/.
func (w *walker) dir(abs, real, rel string) {
	if w.visited[real] {
		return
	}
	w.visited[real] = true
	f, err := os.Open(abs)
	if err != nil {
		w.add(entry{rel: childRel(rel, ""), problem: "cannot read directory: " + errText(err)})
		return
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		w.add(entry{rel: childRel(rel, ""), problem: "cannot read directory: " + errText(err)})
		return
	}
	// Hidden names are skipped unseen; everything else is stat'ed (a name
	// without .md may be a directory), a batch at a time so a 50,000-file
	// directory costs no more memory than a small one.
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") })
	var sts [statBatch]unix.Stat_t
	var errs [statBatch]error
	fd := int(f.Fd())
	w.trust.note(remoteDir(fd, childRel(rel, "")))
	for len(names) > 0 {
		batch := names[:min(len(names), statBatch)]
		names = names[len(batch):]
		statAll(fd, batch, sts[:len(batch)], errs[:len(batch)])
		for i, name := range batch {
			if err := errs[i]; err != nil {
				if !errors.Is(err, unix.ENOENT) { // else deleted since the listing
					w.add(entry{rel: childRel(rel, name), problem: "cannot stat: " + err.Error()})
				}
				continue
			}
			w.found(abs, real, name, childRel(rel, name), &sts[i])
		}
	}
}

const statBatch = 2048

// statAll lstats names in the directory open as dirfd. A stat is a syscall
// that waits on the kernel more than on the CPU, so a big batch is split
// across goroutines (the walk is the whole cost of a no-change refresh).
func statAll(dirfd int, names []string, sts []unix.Stat_t, errs []error) {
	parts := 1
	if len(names) >= 512 {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < len(names); i += parts {
				errs[i] = unix.Fstatat(dirfd, names[i], &sts[i], unix.AT_SYMLINK_NOFOLLOW)
			}
		}()
	}
	wg.Wait()
}

// symlink follows a link only when it resolves inside the workspace: notes
// may be organised with links, but the index must never read the rest of the
// disk because a link pointed there.
func (w *walker) symlink(abs, name, rel string, lst *unix.Stat_t) {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if strings.HasSuffix(name, ".md") {
			w.add(entry{rel: rel, size: lst.Size, mtimeNS: mtime(lst), problem: "broken symlink"})
		}
		return
	}
	if !inside(w.root, target) {
		w.add(entry{rel: rel, size: lst.Size, mtimeNS: mtime(lst), problem: "symlink leading outside the " + w.area() + " (not followed)"})
		return
	}
	var st unix.Stat_t
	if err := unix.Stat(target, &st); err != nil {
		w.add(entry{rel: rel, size: lst.Size, mtimeNS: mtime(lst), problem: "cannot stat: " + err.Error()})
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		// Only directories of notes are followed: a link to the workspace
		// root would index SOUL.md, and loops end at the visited check.
		if !inside(w.logs, target) {
			w.add(entry{rel: rel, size: lst.Size, mtimeNS: mtime(lst), problem: "symlink to a directory outside " + w.linkArea() + " (not followed)"})
			return
		}
		w.dir(target, target, rel)
	case unix.S_IFREG:
		if strings.HasSuffix(name, ".md") && !w.isCopy([]byte(name)) {
			w.add(entry{rel: rel, target: target, root: w.sourceRoot(), size: st.Size, mtimeNS: mtime(&st)})
			if uint64(st.Nlink) > 1 {
				w.trust.note(hardLinked(rel, uint64(st.Nlink)))
			}
		}
	}
}

// sourceRoot is the root a source's entries carry, "" in the workspace.
func (w *walker) sourceRoot() string {
	if w.source == "" {
		return ""
	}
	return w.root
}

func (w *walker) area() string {
	if w.source == "" {
		return "workspace"
	}
	return "source folder"
}

func (w *walker) linkArea() string {
	if w.source == "" {
		return "logs/"
	}
	return "the source folder"
}

func (w *walker) add(e entry) {
	w.out = append(w.out, e)
	w.sum.add(e.hash())
}

// hash is the entry's share of the digest.
func (e *entry) hash() entryHash {
	var h entryHash
	h.init()
	h.str(e.rel)
	h.num(uint64(e.size))
	h.num(uint64(e.mtimeNS))
	h.str(e.problem)
	return h
}

// entryHash is FNV-1a over an entry's path, then its size, mtime and
// problem; two lanes with different seeds make an accidental digest
// collision a 2^-128 event. quickDigest feeds it the same bytes from a
// directory listing without building the path.
type entryHash [2]uint64

func (h *entryHash) init() { *h = entryHash{14695981039346656037, 0x9e3779b97f4a7c15} }

func (h *entryHash) byte(b byte) {
	h[0] = (h[0] ^ uint64(b)) * 1099511628211
	h[1] = (h[1] ^ uint64(b)) * 0x100000001b3d
}

func (h *entryHash) str(s string) {
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
}

func (h *entryHash) bytes(b []byte) {
	for _, c := range b {
		h.byte(c)
	}
}

func (h *entryHash) num(n uint64) {
	for i := 0; i < 64; i += 8 {
		h.byte(byte(n >> i))
	}
}

// add counts one entry into the digest: a sum, so the order entries are
// found in does not matter.
func (d *digest) add(h entryHash) {
	d[0] += fmix(h[0])
	d[1] += fmix(h[1])
}

// fmix is murmur3's finaliser: spreads every input bit over the word, so the
// sums above do not cancel out for entries that differ in one bit.
func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// inside reports whether path is root or below it.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

func mtime(st *unix.Stat_t) int64 { return st.Mtim.Sec*1e9 + st.Mtim.Nsec }

// errText is an error without the path os already put in it: warnings name
// the workspace-relative path themselves.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// isCopy is isConflictCopy in the workspace's own folders, false in a
// source folder: nothing merges a copy there (devsync folds only the
// workspace's files), and a name that looks like one ("2026-11-27-NYC.md")
// is the user's note. quickWalker.isCopy is the same rule.
func (w *walker) isCopy(name []byte) bool { return w.source == "" && isConflictCopy(name) }

// isConflictCopy is a file-sync tool's conflict copy (memory.ConflictCopyOf):
// it is merged into its original at the next command and never indexed
// beside it, which would show every hit twice. memory's screen keeps the
// walk free of allocations for ordinary names.
func isConflictCopy(name []byte) bool {
	if !memory.MayBeConflictCopy(string(name)) {
		return false
	}
	_, ok := memory.ConflictCopyOf(string(name))
	return ok
}
