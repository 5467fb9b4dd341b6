//go:build !linux

package index

// Vouching is Linux-only (vouch_other.go): nothing to tell it.
func remoteDir(fd int, rel string) string { return "" }
func remotePath(path, rel string) string  { return "" }
