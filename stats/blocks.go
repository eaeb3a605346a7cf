package stats

import (
	"errors"
	"slices"

	"github.com/latentree/latentree/data"
)

// ComputeBlocks computes the statistics of every block that r returns
// (reading the next block while computing one, see data.ReadAhead),
// until io.EOF, and merges them (Merge), so that the result equals Compute
// on the concatenation of the blocks read in memory with data.ReadCSV:
// counts exactly, moments to rounding. Discrete states end in the order
// ReadCSV gives them (data.SortStates), whatever block each state was first
// seen in. Memory is that of two blocks and their statistics plus the merged
// statistics. The reader is not closed. An error of r or of Compute is
// returned as is.
func ComputeBlocks(r data.BlockReader, opt Options) (*Stats, error) {
	if r == nil {
		return nil, errors.New("stats: nil block reader")
	}
	// The next block is read while this one is computed.
	acc, _, err := computeMerged(func(f func(*data.Dataset) error) error { return data.ReadAhead(r, f) }, opt)
	if err != nil {
		return nil, err
	}
	if acc.index == nil {
		return nil, errors.New("stats: no blocks to compute statistics of")
	}
	return sortedStates(acc)
}

// ComputeSource computes the statistics of every block of one pass of
// src.Scan and merges them (Merge), as ComputeBlocks does for a
// BlockReader: the result equals Compute on all the rows in memory, counts
// exactly and moments to rounding, with discrete states in data.SortStates
// order. Compute copies what it keeps of a block, so blocks that the source
// reuses are safe. It is an error if src gives no block; an error of src
// or of Compute is returned as is.
func ComputeSource(src data.Source, opt Options) (*Stats, error) {
	if src == nil {
		return nil, errors.New("stats: nil source")
	}
	acc, blocks, err := computeMerged(src.Scan, opt)
	if err != nil {
		return nil, err
	}
	if blocks == 0 {
		return nil, errors.New("stats: no rows: the source gave no blocks")
	}
	return sortedStates(acc)
}

// sortedStates returns s with the states of every discrete variable in the
// order data.SortStates gives them: s itself when they are already in that
// order, else an empty Stats with the sorted states into which s is merged
// (Merge keeps the receiver's state order and copies counts exactly).
func sortedStates(s *Stats) (*Stats, error) {
	vars := make([]data.Variable, len(s.vars))
	same := true
	for j, v := range s.vars {
		v.States = slices.Clone(v.States)
		data.SortStates(v.States)
		if !slices.Equal(v.States, s.vars[j].States) {
			same = false
		}
		vars[j] = v
	}
	if same {
		return s, nil
	}
	out := newStats(vars, s.pairs)
	if err := out.Merge(s); err != nil {
		return nil, err
	}
	return out, nil
}

// computeMerged computes the statistics of every block that scan passes to
// its function and merges them; it returns the merged statistics and the
// number of blocks.
func computeMerged(scan func(func(*data.Dataset) error) error, opt Options) (*Stats, int, error) {
	var acc Stats
	blocks := 0
	err := scan(func(d *data.Dataset) error {
		blocks++
		s, err := Compute(d, opt)
		if err != nil {
			return err
		}
		return acc.merge(s, opt.MaxPairBytes)
	})
	return &acc, blocks, err
}
