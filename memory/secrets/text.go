package secrets

import "strings"

// text is the text Find reads, with what its scans share: the set of its
// lowercased byte trigrams, and its ASCII-lowercased copy, made only when
// a scan needs it.
//
// Why: the scans look for some sixty literals (the providers' hints, the
// key words, "://", "authorization", "bearer", "curl"…), each with a pass
// over the whole text, and the index runs them on every note it reads; an
// ordinary note holds few of them. One pass building the trigram set tells
// which may occur, and only those are searched. A literal that occurs has
// all its trigrams in the set, so a skipped search is one that would have
// found nothing, and the findings are the same; the hash into 2^16 bits
// only makes the set answer "may" more often than it should, never "no"
// wrongly.
type text struct {
	s       string
	low     string
	lowered bool
	upper   bool // s holds an upper-case ASCII letter: lowering must copy it
	grams   [1 << 16 / 64]uint64
}

// init sets t to s (a text is 8 KB, kept on the stack by its caller:
// Find runs once per note).
func (t *text) init(s string) {
	*t = text{s: s}
	var g uint32
	var changed byte
	for i := 0; i < len(s); i++ {
		c := lowerByte[s[i]]
		changed |= c ^ s[i]
		g = g<<8 | uint32(c)
		h := gramHash(g) // at i < 2 a partial trigram: one more bit set, harmless
		t.grams[h/64] |= 1 << (h % 64)
	}
	t.upper = changed != 0
}

// gramHash maps the trigram in the low 24 bits of g to 16 bits
// (Fibonacci hashing: the high bits of g times 2^32/φ).
func gramHash(g uint32) uint32 { return (g & 0xffffff) * 0x9e3779b1 >> 16 }

// may says whether lit (lower case, 3 bytes or more) may occur in the
// lowercased text: false means it does not.
func (t *text) may(lit string) bool {
	for i := 2; i < len(lit); i++ {
		h := gramHash(uint32(lit[i-2])<<16 | uint32(lit[i-1])<<8 | uint32(lit[i]))
		if t.grams[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
}

// lower is the text with A-Z lowercased, the same length (asciiLower).
func (t *text) lower() string {
	if !t.lowered {
		t.low, t.lowered = t.s, true
		if t.upper {
			t.low = asciiLower(t.s)
		}
	}
	return t.low
}

// contains says whether the lowercased text holds lit (lower case).
func (t *text) contains(lit string) bool {
	return t.may(lit) && strings.Contains(t.lower(), lit)
}
