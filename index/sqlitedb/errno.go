package sqlitedb

import (
	"errors"
	"syscall"
)

// osWriteErrno is WriteErrno for an error that carries a syscall.Errno (an
// *os.PathError, a *os.LinkError…).
func osWriteErrno(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return diskErrno(e)
	}
	return 0
}

// diskErrno keeps the errnos that mean the disk refused a write.
func diskErrno(e syscall.Errno) syscall.Errno {
	switch e {
	case syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EACCES, syscall.EPERM:
		return e
	}
	return 0
}
