//go:build !unix

package journal

import "io/fs"

// fileIdentity is unknown here: the path stands in for it.
func fileIdentity(fs.FileInfo) (string, bool) { return "", false }
