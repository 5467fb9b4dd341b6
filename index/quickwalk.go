//go:build linux

package index

import (
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"agent/memory"
)

// quickDigest computes the digest walk would, for the common case only:
// MEMORY.md a regular file (or absent) and logs/ a tree of real directories
// and files. It allocates nothing per file: names are read with getdents
// into one buffer and stat'ed in place, and their hash is fed from there. A
// fresh search and a no-change reindex, the commands that walk most, are
// nearly always answered by this alone; it is the whole cost of a fresh
// search when no watcher vouches for the index. On anything unusual — a
// symlink, an unreadable directory, a failed stat — it gives up (ok false)
// and the caller runs walk, which knows what to do with them. n is the
// number of files counted.
func quickDigest(home string) (sum digest, n int, ok bool) {
	sum, n, _, ok = quickDigestTrust(home)
	return sum, n, ok
}

// quickDigestTrust is quickDigest that also says, as walkTrust does, why a
// watcher could not vouch for the files.
func quickDigestTrust(home string) (sum digest, n int, why string, ok bool) {
	var trust untrusted
	trust.note(remotePath(home, "the workspace"))
	var st unix.Stat_t
	switch err := unix.Lstat(filepath.Join(home, memoryFile), &st); {
	case err == nil:
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return digest{}, 0, "", false
		}
		var h entryHash
		h.init()
		h.str(memoryFile)
		h.num(uint64(st.Size))
		h.num(uint64(mtime(&st)))
		sum.add(h)
		n++
		if uint64(st.Nlink) > 1 {
			trust.note(hardLinked(memoryFile, uint64(st.Nlink)))
		}
	case !errors.Is(err, unix.ENOENT):
		return digest{}, 0, "", false
	}
	q := quickWalker{buf: make([]byte, 64<<10), trust: trust}
	for _, dir := range noteDirs {
		abs := filepath.Join(home, dir)
		switch err := unix.Lstat(abs, &st); {
		case errors.Is(err, unix.ENOENT):
			continue
		case err != nil:
			return digest{}, 0, "", false
		case st.Mode&unix.S_IFMT == unix.S_IFREG:
			continue // a file named logs: walk ignores it too
		case st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return digest{}, 0, "", false
		}
		if !q.dir(abs, dir+"/") {
			return digest{}, 0, "", false
		}
	}
	// Sources: a folder that is gone counts as walk counts it (one entry),
	// so a search does not walk everything while it stays gone; anything
	// unusual inside a folder is walk's to report.
	sources, err := memory.LoadSources(home)
	if err != nil {
		return digest{}, 0, "", false
	}
	realHome := home
	if len(sources) > 0 {
		if realHome, err = filepath.EvalSymlinks(home); err != nil {
			return digest{}, 0, "", false
		}
	}
	q.inSource = true
	for _, s := range sources {
		real, gone := sourceFolder(s, realHome)
		if gone != nil {
			sum.add(gone.hash())
			n++
			continue
		}
		q.trust.note(remotePath(real, "source "+s.Name))
		if !q.dir(real, s.Name+":") {
			return digest{}, 0, "", false
		}
	}
	sum[0] += q.sum[0]
	sum[1] += q.sum[1]
	return sum, n + q.n, q.trust.why, true
}

type quickWalker struct {
	buf   []byte // getdents buffer, reused for every directory
	sum   digest
	n     int
	offs  []int // offsets in buf of the names to stat
	trust untrusted
	// inSource: the folders walked now are sources, where a conflict
	// copy's name is a note's (walker.isCopy)
	inSource bool
}

func (q *quickWalker) isCopy(name []byte) bool { return !q.inSource && isConflictCopy(name) }

// dir adds every .md file under the directory abs, whose paths start with
// prefix ("logs/", "logs/2026/").
func (q *quickWalker) dir(abs, prefix string) bool {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	q.trust.note(remoteDir(fd, prefix))
	var subdirs []string
	for {
		nread, err := unix.Getdents(fd, q.buf)
		if err != nil {
			return false
		}
		if nread == 0 {
			break
		}
		q.offs = q.offs[:0]
		// linux_dirent64: ino u64, off u64, reclen u16, type u8, name NUL-terminated.
		for off := 0; off < nread; {
			reclen := int(*(*uint16)(unsafe.Pointer(&q.buf[off+16])))
			typ := q.buf[off+18]
			name := q.buf[off+19 : off+reclen]
			name = name[:clen(name)]
			nameOff := off + 19
			off += reclen
			if len(name) == 0 || name[0] == '.' {
				continue // hidden, or . and ..
			}
			switch typ {
			case unix.DT_DIR:
				subdirs = append(subdirs, string(name))
			case unix.DT_REG:
				if hasMDSuffix(name) && !q.isCopy(name) {
					q.offs = append(q.offs, nameOff)
				}
			case unix.DT_UNKNOWN:
				q.offs = append(q.offs, nameOff) // the stat tells
			case unix.DT_LNK:
				return false
			}
			// Anything else (a fifo, a socket) is not a note, for walk too.
		}
		more, ok := q.statNames(fd, prefix)
		if !ok {
			return false
		}
		subdirs = append(subdirs, more...)
	}
	for _, d := range subdirs {
		if !q.dir(filepath.Join(abs, d), prefix+d+"/") {
			return false
		}
	}
	return true
}

// statNames stats the names at q.offs, in parallel when there are many
// (each stat is a syscall, and they are the whole cost), and adds the .md
// files to the digest. Directories found only by the stat are returned.
func (q *quickWalker) statNames(dirfd int, prefix string) (subdirs []string, ok bool) {
	parts := 1
	if len(q.offs) >= 512 {
		parts = runtime.GOMAXPROCS(0)
	}
	type part struct {
		sum     digest
		n       int
		subdirs []string
		failed  bool
		linked  string
	}
	res := make([]part, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &res[p]
			var st unix.Stat_t
			for i := p; i < len(q.offs); i += parts {
				off := q.offs[i]
				// The name is NUL-terminated in the buffer: stat it in place.
				_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&q.buf[off])),
					uintptr(unsafe.Pointer(&st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
				name := q.buf[off : off+clen(q.buf[off:])]
				switch {
				case errno == unix.ENOENT:
					continue // deleted since the listing: walk skips it too
				case errno != 0:
					r.failed = true
					return
				}
				switch st.Mode & unix.S_IFMT {
				case unix.S_IFREG:
					if !hasMDSuffix(name) || q.isCopy(name) {
						continue
					}
					var h entryHash
					h.init()
					h.str(prefix)
					h.bytes(name)
					h.num(uint64(st.Size))
					h.num(uint64(mtime(&st)))
					r.sum.add(h)
					r.n++
					if st.Nlink > 1 && r.linked == "" {
						r.linked = hardLinked(prefix+string(name), uint64(st.Nlink))
					}
				case unix.S_IFDIR:
					r.subdirs = append(r.subdirs, string(name))
				case unix.S_IFLNK:
					r.failed = true
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, r := range res {
		if r.failed {
			return nil, false
		}
		q.sum[0] += r.sum[0]
		q.sum[1] += r.sum[1]
		q.n += r.n
		q.trust.note(r.linked)
		subdirs = append(subdirs, r.subdirs...)
	}
	return subdirs, true
}

// clen is the length of the NUL-terminated name at the start of b.
func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

func hasMDSuffix(name []byte) bool { return bytes.HasSuffix(name, []byte(".md")) }
