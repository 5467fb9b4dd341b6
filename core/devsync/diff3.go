package devsync

import "slices"

// hunk is one stretch of a three-way line merge: either lines all three
// versions agree on (stable), or a stretch where at least one side differs
// from the base.
type hunk struct {
	stable             bool
	base, ours, theirs []string
}

// diff3 splits a three-way comparison of line slices into stable and
// changed hunks (the classic diff3 walk over two LCS matchings, base↔ours
// and base↔theirs).
func diff3(base, ours, theirs []string) []hunk {
	mo := matching(base, ours)
	mt := matching(base, theirs)
	var out []hunk
	io, ia, ib := 0, 0, 0
	for io < len(base) || ia < len(ours) || ib < len(theirs) {
		// A stable run: the next base line is matched to the next line of
		// both sides.
		n := 0
		for io+n < len(base) && mo[io+n] == ia+n && mt[io+n] == ib+n {
			n++
		}
		if n > 0 {
			out = append(out, hunk{stable: true, base: base[io : io+n], ours: ours[ia : ia+n], theirs: theirs[ib : ib+n]})
			io, ia, ib = io+n, ia+n, ib+n
			continue
		}
		// A changed run ends at the next base line both sides still hold.
		o := io
		for o < len(base) && !(mo[o] >= ia && mt[o] >= ib) {
			o++
		}
		ea, eb := len(ours), len(theirs)
		if o < len(base) {
			ea, eb = mo[o], mt[o]
		}
		out = append(out, hunk{base: base[io:o], ours: ours[ia:ea], theirs: theirs[ib:eb]})
		io, ia, ib = o, ea, eb
	}
	return out
}

// matching maps each line of a to the index of its partner in b along a
// longest common subsequence, or -1.
func matching(a, b []string) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	// Common head and tail are matched directly: most merges touch a few
	// lines of a long file, and the table below is then small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		m[len(a)-1-suf] = len(b) - 1 - suf
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	// The table costs len(x)·len(y); past a bound (two versions of a huge
	// section rewritten throughout) the middle stays unmatched: the merge
	// then keeps both versions whole, which loses nothing.
	if len(x)*len(y) > maxTable {
		return m
	}
	// lens[i][j] is the LCS length of x[i:] and y[j:].
	lens := make([][]int32, len(x)+1)
	for i := range lens {
		lens[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lens[i][j] = lens[i+1][j+1] + 1
			} else {
				lens[i][j] = max(lens[i+1][j], lens[i][j+1])
			}
		}
	}
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] == y[j]:
			m[pre+i] = pre + j
			i, j = i+1, j+1
		case lens[i+1][j] >= lens[i][j+1]:
			i++
		default:
			j++
		}
	}
	return m
}

// maxTable bounds the LCS table: 4M cells, 16 MB.
const maxTable = 1 << 22

// common is a longest common subsequence of a and b: the base a two-way
// merge (a file-sync tool's conflict copy, which has no base) stands on.
func common(a, b []string) []string {
	var out []string
	for i, j := range matching(a, b) {
		if j >= 0 {
			out = append(out, a[i])
		}
	}
	return out
}

func same(a, b []string) bool { return slices.Equal(a, b) }
