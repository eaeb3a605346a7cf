package parallel

import (
	"sync/atomic"
	"testing"
)

// TestFor checks that every index is visited once, for any number of
// workers, and that a worker's index stays in range.
func TestFor(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 5, 64} {
			seen := make([]int32, n)
			For(workers, n, func(w, i int) {
				if w < 0 || w >= max(1, min(workers, n)) {
					t.Errorf("workers %d, n %d: worker %d", workers, n, w)
				}
				atomic.AddInt32(&seen[i], 1)
			})
			for i, c := range seen {
				if c != 1 {
					t.Errorf("workers %d, n %d: index %d visited %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestForState checks that each goroutine makes its state once and that
// no state is made without an index to work on.
func TestForState(t *testing.T) {
	var made atomic.Int32
	sum := make([]int, 100)
	ForState(4, len(sum), func() *int { made.Add(1); return new(int) }, func(s *int, i int) {
		*s++
		sum[i] = i
	})
	if m := made.Load(); m < 1 || m > 4 {
		t.Errorf("%d states made, want 1 to 4", m)
	}
	for i, v := range sum {
		if v != i {
			t.Fatalf("index %d: %d", i, v)
		}
	}
	ForState(4, 0, func() *int { t.Error("state made for no index"); return nil }, func(*int, int) {})
}
