package forget

import (
	"encoding/hex"
	"strings"
	"testing"

	"agent/core/forgotten"
)

// BenchmarkHashFinder: what another device's forget costs here, per MB of
// text searched (state.db values, workspace files, journals): one
// HMAC-SHA256 under the forget key per character for a phrase known only by
// its hash ("keyed"), against the plain salted SHA-256 of rows made before
// keys ("plain").
func BenchmarkHashFinder(b *testing.B) {
	text := strings.Repeat("A line of an ordinary daily log, with some words in it. ", 1<<20/56)
	salt := []byte("0123456789abcdef")
	k, _ := forgotten.ParseKey(strings.Repeat("ab", 32))
	plain := forgotten.Plain()
	plain.Write(salt)
	plain.Write([]byte("marta & tom"))
	for _, c := range []struct {
		name string
		f    finder
	}{
		{"keyed", hashFinder(k.Hash(), salt, k.Sum(salt, "marta & tom"), 11)},
		{"plain", hashFinder(forgotten.Plain(), salt, hex.EncodeToString(plain.Sum(nil)), 11)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if len(c.f(text)) != 0 {
					b.Fatal("found")
				}
			}
		})
	}
}
