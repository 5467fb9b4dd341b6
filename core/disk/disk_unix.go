//go:build unix

package disk

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Free is the space at dir this user may still write, or -1 when the
// system cannot say.
func Free(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// writable is why this process may not create a file in dir, or 0.
func writable(dir string) syscall.Errno {
	err := unix.Access(dir, unix.W_OK)
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return 0
}
