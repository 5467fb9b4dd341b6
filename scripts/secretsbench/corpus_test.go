package main

import (
	"testing"
)

// The corpus' targets (issue 33): at least 95% of the secrets caught and
// not one negative touched, over several seeds so that a value that
// happens to fall just outside a threshold shows up as a miss, not a flake.
func TestCorpusTargets(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		c := Run(seed)
		if c.Positives < 300 || c.Negatives < 300 || c.Kinds < 25 {
			t.Fatalf("seed %d: corpus too small: %d positives, %d negatives, %d kinds", seed, c.Positives, c.Negatives, c.Kinds)
		}
		if c.Caught*100 < c.Positives*95 {
			t.Errorf("seed %d: caught %d of %d, under 95%%; missed: %q", seed, c.Caught, c.Positives, c.Missed)
		}
		for _, n := range c.Touched {
			t.Errorf("seed %d: touched %q", seed, n)
		}
	}
}
