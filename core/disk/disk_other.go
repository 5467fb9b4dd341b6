//go:build !unix

package disk

import "syscall"

// Free cannot be asked here.
func Free(string) int64 { return -1 }

// writable cannot be asked here: only errnos say why.
func writable(string) syscall.Errno { return 0 }
