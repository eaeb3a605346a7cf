// Package parallel runs loops over indices on a bounded number of
// goroutines, for work whose result must not depend on that number: each
// index writes only its own result slot, and per-goroutine scratch space
// is the goroutine's own.
package parallel

import (
	"sync"
	"sync/atomic"
)

// For calls f(w, i) once for every i in [0, n). When min(workers, n) ≤ 1
// it runs on the calling goroutine with w = 0; otherwise on min(workers,
// n) goroutines, w being the goroutine's index (for its scratch space),
// which take the indices in increasing order as they become free. f must
// write only to what belongs to i or to w.
func For(workers, n int, f func(w, i int)) {
	nw := min(workers, n)
	if nw <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(w, i)
			}
		})
	}
	wg.Wait()
}

// ForState is For with per-goroutine state: each goroutine that takes an
// index first makes its own state with newState, and f(s, i) gets it.
func ForState[S any](workers, n int, newState func() S, f func(s S, i int)) {
	states := make([]S, max(1, min(workers, n)))
	made := make([]bool, len(states))
	For(workers, n, func(w, i int) {
		if !made[w] {
			states[w], made[w] = newState(), true
		}
		f(states[w], i)
	})
}
