package core

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// countingRecaller answers with one hit naming the text, after release is
// closed, and counts the calls.
type countingRecaller struct {
	calls   atomic.Int32
	release chan struct{}
}

func (c *countingRecaller) Recall(ctx context.Context, text string, k int) ([]Recalled, error) {
	c.calls.Add(1)
	<-c.release
	return []Recalled{{Path: "MEMORY.md", Text: text}}, nil
}
func (c *countingRecaller) Stats(context.Context) (int, int, time.Time, error) {
	return 0, 0, time.Time{}, nil
}
func (c *countingRecaller) Wrote() {}

func TestRecallAheadHandsOverOnce(t *testing.T) {
	ctx := context.Background()
	r := &countingRecaller{release: make(chan struct{})}
	ahead := RecallAhead(ctx, r, "plumber friday", 6)
	close(r.release)
	hits, err := ahead.Recall(ctx, "plumber friday", 6)
	if err != nil || len(hits) != 1 || hits[0].Text != "plumber friday" {
		t.Fatalf("first recall: %v, %v", hits, err)
	}
	if n := r.calls.Load(); n != 1 {
		t.Fatalf("the recall ran %d times, want once (ahead)", n)
	}
	// The result is used once: a later turn with the same words recalls
	// afresh, for the files may have changed since.
	if _, err := ahead.Recall(ctx, "plumber friday", 6); err != nil {
		t.Fatal(err)
	}
	if n := r.calls.Load(); n != 2 {
		t.Fatalf("second recall of the same message reused the old result (calls %d)", n)
	}
	for _, c := range []struct {
		text string
		k    int
	}{{"something else", 6}, {"plumber friday", 3}} {
		hits, err := ahead.Recall(ctx, c.text, c.k)
		if err != nil || len(hits) != 1 || hits[0].Text != c.text {
			t.Fatalf("Recall(%q, %d) = %v, %v: not passed through", c.text, c.k, hits, err)
		}
	}
}

func TestRecallAheadCancelled(t *testing.T) {
	r := &countingRecaller{release: make(chan struct{})}
	defer close(r.release)
	ahead := RecallAhead(context.Background(), r, "plumber", 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ahead.Recall(ctx, "plumber", 6); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled turn waited for the recall: %v", err)
	}
}
