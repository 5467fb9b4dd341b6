package devsync

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// forgetLines makes a file of n lines, each holding a secret, and the same
// file with every secret forgotten; hostile reverses the forgotten lines,
// so each removed line is explained only by a marked line far down.
func forgetLines(n int, hostile bool) (old, new string) {
	var o, w []string
	for i := range n {
		o = append(o, fmt.Sprintf("- fact %05d: the code is %d", i, 7000+i))
		w = append(w, fmt.Sprintf("- fact %05d: the code is [forgotten]", i))
		if i%100 == 0 {
			o = append(o, "kept")
			w = append(w, "kept")
		}
	}
	if hostile {
		slices.Reverse(w)
	}
	return strings.Join(o, "\n") + "\n", strings.Join(w, "\n") + "\n"
}

// A forget of 10,000 lines is taken as it was (10,000 lines forgotten,
// matched in order: linear), and a remote whose 10,000 marked lines come
// in the reverse order, each forcing a search of all the others, is
// refused within forgetWork matches a line rather than paid for.
func TestForgetsInIsLinearOnAHostileRemote(t *testing.T) {
	old, new := forgetLines(10000, false)
	if n, line := forgetsIn(old, new, "[forgotten]"); n != 10000 || line != 0 {
		t.Errorf("a forget of 10,000 lines: forgetsIn = %d, %d; want 10000, 0", n, line)
	}
	old, new = forgetLines(10000, true)
	if n, line := forgetsIn(old, new, "[forgotten]"); n != -1 || line == 0 {
		t.Errorf("10,000 marked lines in the reverse order: forgetsIn = %d, %d; want refused (-1) within its bound", n, line)
	}
	// Below the bound the reverse order is still matched as before.
	old, new = forgetLines(50, true)
	if n, _ := forgetsIn(old, new, "[forgotten]"); n != 50 {
		t.Errorf("50 marked lines in the reverse order: forgetsIn = %d, want 50", n)
	}
}

func BenchmarkForgetsIn(b *testing.B) {
	for _, c := range []struct {
		name    string
		hostile bool
	}{{"forget10k", false}, {"hostile10k", true}} {
		old, new := forgetLines(10000, c.hostile)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				forgetsIn(old, new, "[forgotten]")
			}
		})
	}
}

// pattern.match says what the regular expression it stands for said
// (^part(.+?)part…$), over every short line of a small alphabet.
func TestPatternMatchesAsTheRegexpDid(t *testing.T) {
	const marker = "#"
	var lines []string
	var grow func(s string)
	grow = func(s string) {
		lines = append(lines, s)
		if len(s) < 6 {
			for _, c := range []string{"a", "b", "#"} {
				grow(s + c)
			}
		}
	}
	grow("")
	for _, l := range lines {
		if !strings.Contains(l, marker) {
			continue
		}
		parts := strings.Split(l, marker)
		quoted := make([]string, len(parts))
		for i, p := range parts {
			quoted[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile(`^` + strings.Join(quoted, `(.+?)`) + `$`)
		for _, s := range lines {
			if s == "" {
				continue
			}
			if got, want := pattern(parts).match(s), re.MatchString(s); got != want {
				t.Fatalf("%q matching %q: %v, the regexp said %v", l, s, got, want)
			}
		}
	}
}
