package data

import (
	"errors"
	"io"
	"sync"
)

// A Source gives a dataset's rows as a sequence of blocks, as many times
// as asked: EM and scoring make one pass per iteration, so data that do
// not fit in memory as a Dataset can be re-read from files (Files) or kept
// in a compact form (Packed).
//
// Scan calls fn with consecutive blocks that together hold every row once,
// always in the same order and with the same block boundaries, so that
// sums over blocks are reproducible. Every block has the same variables
// in the same order and of the same kinds; the states of a discrete
// variable may grow from block to block (codes are stable, see
// BlockReader). A block and its column slices may be reused by the next
// block: fn must not keep them. Scan stops at the first error of fn or of
// the source and returns it.
type Source interface {
	Scan(fn func(block *Dataset) error) error
}

// Scan calls fn once with d itself: a Dataset is a Source of one block.
func (d *Dataset) Scan(fn func(block *Dataset) error) error {
	if d == nil {
		return errors.New("data: nil dataset")
	}
	return fn(d)
}

// Files is a Source that reads files with OpenBlocks on every pass, so that
// memory is bounded by the block size whatever the number of rows.
//
// The first pass types the columns from every row, as OpenBlocks does
// (reading the files twice). Files remembers the variables it found, and
// later passes read the files once, with those variables: they give the
// same blocks. A file that changed in between (another size or
// modification time, another number of rows, a value not among its
// column's states or not a number in a continuous column) makes the pass
// an error, as do Paths or Options changed after the first pass. With
// Options.FirstBlockTyping every pass reads the files once and types
// them anew.
type Files struct {
	Paths   []string
	Options BlockOptions

	mu    sync.Mutex
	typed *typedFiles // what the first typing pass found
}

// Scan reads the files from the start, block by block. The next block is
// read while fn works on the current one (OpenBlocks gives every block
// its own memory), so reading and computing overlap on two cores.
func (f *Files) Scan(fn func(block *Dataset) error) error {
	f.mu.Lock()
	known := f.typed
	f.mu.Unlock()
	if f.Options.FirstBlockTyping {
		known = nil
	}
	r, err := openBlocks(f.Paths, f.Options, known)
	if err != nil {
		return err
	}
	defer r.Close()
	if r.typed != nil {
		f.mu.Lock()
		if f.typed == nil {
			f.typed = r.typed
		}
		f.mu.Unlock()
	}
	return ReadAhead(r, fn)
}

// ReadAhead calls fn with every block of r until io.EOF, reading the next
// block in another goroutine while fn runs. It returns the first error of
// r or fn; the reader is not closed. Blocks must not share memory (those
// of OpenBlocks do not).
func ReadAhead(r BlockReader, fn func(block *Dataset) error) error {
	type item struct {
		d   *Dataset
		err error
	}
	next := make(chan item, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(next)
		for {
			d, err := r.Next()
			select {
			case next <- item{d, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		// Also when fn panics: the reader is not used after ReadAhead
		// returns.
		close(stop)
		<-done
	}()
	for it := range next {
		if it.err == io.EOF {
			return nil
		}
		if it.err != nil {
			return it.err
		}
		if err := fn(it.d); err != nil {
			return err
		}
	}
	return nil
}
