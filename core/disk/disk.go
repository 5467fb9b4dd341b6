// Package disk says in the user's terms why the workspace's disk refused a
// write: it is full (and how much is free), read-only, or not writable. A
// full disk is not a damaged database, and the words must not say so.
package disk

import (
	"errors"
	"fmt"
	"syscall"

	"agent/index/sqlitedb"
)

// ErrCannotWrite marks every Problem: the exit code table maps it once.
var ErrCannotWrite = errors.New("the disk refused the write")

// Kind is what is wrong with the disk.
type Kind int

// The kinds of Problem.
const (
	Full Kind = iota + 1
	ReadOnly
	NotWritable
)

// Problem is a write the disk refused, said as the user would say it.
type Problem struct {
	Kind Kind
	Dir  string // the workspace directory it was found at
	// Free is the space left for this user at Dir, for Full; -1 unknown.
	Free int64
	Err  error // the error the write failed with
}

// Error is the sentence the user reads; it never calls anything damaged.
func (p *Problem) Error() string {
	switch p.Kind {
	case Full:
		if p.Free >= 0 {
			return fmt.Sprintf("the disk is full (%s free at %s)", Size(p.Free), p.Dir)
		}
		return fmt.Sprintf("the disk is full at %s", p.Dir)
	case ReadOnly:
		return fmt.Sprintf("%s is on a read-only file system", p.Dir)
	default:
		return fmt.Sprintf("%s is not writable (permission denied)", p.Dir)
	}
}

// Is makes every Problem an ErrCannotWrite.
func (p *Problem) Is(target error) bool { return target == ErrCannotWrite }

// Unwrap is the error the write failed with.
func (p *Problem) Unwrap() error { return p.Err }

// Outcome is what the user is told happened to their data.
func (p *Problem) Outcome() string {
	fix := "free some space and run it again"
	switch p.Kind {
	case ReadOnly:
		fix = "make it writable (mount it read-write) and run it again"
	case NotWritable:
		fix = "check the permissions of " + p.Dir + " and run it again"
	}
	return "nothing was written, nothing was lost and nothing is damaged; " + fix
}

// Classify returns the Problem err is when the disk at dir refused a write
// (its errno says so), else nil.
func Classify(dir string, err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	return fromErrno(dir, sqlitedb.WriteErrno(err), err)
}

// Check looks at dir itself: a directory this process may not write to, or a
// disk with (almost) nothing free, is a Problem. It is asked after a failure
// whose error does not say why (SQLite reports a read-only directory as
// "unable to open database file").
func Check(dir string, err error) *Problem {
	if p := Classify(dir, err); p != nil {
		return p
	}
	if e := writable(dir); e != 0 {
		return fromErrno(dir, e, err)
	}
	if free := Free(dir); free >= 0 && free < fullBelow {
		return &Problem{Kind: Full, Dir: dir, Free: free, Err: err}
	}
	return nil
}

// fullBelow is the free space under which a disk counts as full when no
// errno said so: SQLite alone needs 32 KB for a WAL's shared memory.
const fullBelow = 256 << 10

func fromErrno(dir string, e syscall.Errno, err error) *Problem {
	switch e {
	case syscall.ENOSPC, syscall.EDQUOT:
		return &Problem{Kind: Full, Dir: dir, Free: Free(dir), Err: err}
	case syscall.EROFS:
		return &Problem{Kind: ReadOnly, Dir: dir, Free: -1, Err: err}
	case syscall.EACCES, syscall.EPERM:
		return &Problem{Kind: NotWritable, Dir: dir, Free: -1, Err: err}
	}
	return nil
}

// Size is n bytes as a person reads it: 0 B, 12 KB, 3.4 MB, 1.2 GB.
func Size(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d KB", n/1000)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
