package forget

import (
	"strings"
	"testing"

	"agent/core/forgotten"
)

// BenchmarkHashFinder: what another device's forget costs here, per MB of
// text searched (state.db values, workspace files, journals): one SHA-256
// per character for a phrase known only by its hash (an HMAC-SHA256 under
// the forget key).
func BenchmarkHashFinder(b *testing.B) {
	text := strings.Repeat("A line of an ordinary daily log, with some words in it. ", 1<<20/56)
	salt := []byte("0123456789abcdef")
	k, _ := forgotten.ParseKey(strings.Repeat("ab", 32))
	f := hashFinder(k.Hash(), salt, k.Sum(salt, "marta & tom"), 11)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if len(f(text)) != 0 {
			b.Fatal("found")
		}
	}
}
