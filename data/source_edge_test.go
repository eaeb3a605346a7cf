package data_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latentree/latentree/data"
)

// countingBlocks is fakeBlocks with an atomic count of the calls to Next
// (the reading goroutine may call it after ReadAhead returns).
type countingBlocks struct {
	inner fakeBlocks
	calls atomic.Int64
}

func (c *countingBlocks) Next() (*data.Dataset, error) {
	c.calls.Add(1)
	return c.inner.Next()
}
func (c *countingBlocks) Names() []string { return c.inner.Names() }
func (c *countingBlocks) Close() error    { return nil }

// TestReadAheadPanic: when fn panics (and the caller recovers), the
// reading goroutine is left blocked for ever on its channel: ReadAhead's
// clean-up (close(stop), <-done) only runs on a return path.
func TestReadAheadPanic(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		r := &countingBlocks{inner: fakeBlocks{n: 1000}}
		func() {
			defer func() { _ = recover() }()
			_ = data.ReadAhead(r, func(*data.Dataset) error { panic("boom") })
		}()
	}
	time.Sleep(100 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Errorf("%d goroutines before, %d after 20 panicking calls of ReadAhead: the readers leak", before, after)
	}
}
