//go:build unix

package journal

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity is a file's device and inode: what a copy never shares.
func fileIdentity(info fs.FileInfo) (string, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), true
}
