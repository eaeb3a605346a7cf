package experiment

import (
	"context"
	"sync"
)

// runParallel runs work(i) for i in [0, n) on the given number of
// goroutines. Each call returns a function that records its result; those
// run one at a time, followed by progress (if not nil). It stops feeding
// work when ctx is done and returns the first error, or ctx's.
func runParallel(ctx context.Context, n, workers int, progress func(done, total int), work func(i int) (record func(), err error)) error {
	jobs := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	done := 0
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range jobs {
				record, err := work(i)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil && record != nil {
					record()
				}
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
