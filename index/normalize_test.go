package index

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// decodeVec reads back what encodeVec stored.
func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// A query vector normalised in place holds the very float32s a stored
// vector would (its dot products are the stored cosines), a zero vector
// stays zero, and nothing is allocated: no round trip through bytes.
func TestNormalizeInPlaceAsStored(t *testing.T) {
	for _, v := range [][]float32{
		{3, 4},
		{0.1, -0.2, 0.3, 1e-8, 7},
		{1e30, 1e30}, // the sum of squares overflows float32, not float64
		{0, 0, 0},
		{},
	} {
		got := slices.Clone(v)
		normalize(got)
		if want := decodeVec(encodeVec(v)); !slices.Equal(got, want) {
			t.Errorf("normalize(%v) = %v, stored as %v", v, got, want)
		}
	}
	if got := []float32{3, 4}; func() bool { normalize(got); return got[0] != 0.6 || got[1] != 0.8 }() {
		t.Errorf("normalize(3, 4) = %v, want 0.6, 0.8", got)
	}
	v := make([]float32, 768)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	if n := testing.AllocsPerRun(10, func() { normalize(v) }); n != 0 {
		t.Errorf("normalize allocated %v times", n)
	}
}
