//go:build linux

package index

import "testing"

// checkDigestAgrees: the quick digest (Linux's getdents walk) sees the
// same files as the walk.
func checkDigestAgrees(t *testing.T, home string) { checkQuickDigest(t, home, true) }
