package stats

import (
	"errors"

	"github.com/latentree/latentree/data"
)

// computeWeighted is compute for a dataset with frequency weights: the
// statistics of the rows each repeated by its weight. A whole-number
// weight w is the sum of its binary digits 2^k; the rows whose weight has
// digit k are counted once (compute) and their statistics scaled by 2^k,
// so the cost is that of at most 53 passes over parts of the rows, not of
// the expanded rows. Counts are exact; means and moments equal those of
// the expanded rows up to rounding.
func computeWeighted(d *data.Dataset, opt Options, budget int) (*Stats, error) {
	if d.WeightKind() != data.Frequency {
		return nil, errors.New("stats: sampling weights are not supported: pairwise statistics hold whole counts (use frequency weights, or fit a model to the weighted data directly)")
	}
	w := d.Weights()
	plain, err := d.Select(allColumns(d))
	if err != nil {
		return nil, err
	}
	if err := plain.SetWeights(nil, data.Frequency); err != nil {
		return nil, err
	}
	var out *Stats
	for k := 0; k < 53; k++ {
		bit := uint64(1) << k
		var rows []int
		for r, x := range w {
			if uint64(x)&bit != 0 {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		part, err := plain.Rows(rows)
		if err != nil {
			return nil, err
		}
		s, err := compute(part, opt, budget)
		if err != nil {
			return nil, err
		}
		s.scale(int64(bit))
		if out == nil {
			out = s
			continue
		}
		if err := out.merge(s, opt.MaxPairBytes); err != nil {
			return nil, err
		}
	}
	if out == nil {
		return nil, errors.New("stats: every weight is 0")
	}
	return out, nil
}

func allColumns(d *data.Dataset) []int {
	cols := make([]int, d.NumVars())
	for j := range cols {
		cols[j] = j
	}
	return cols
}

// scale multiplies the statistics by f: those of the rows each repeated
// f times.
func (s *Stats) scale(f int64) {
	if f == 1 {
		return
	}
	ff := float64(f)
	s.rows *= f
	mulInts(s.count, f)
	for _, m := range s.marg {
		mulInts(m, f)
	}
	for j := range s.m2 {
		s.m2[j] *= ff
	}
	mulInts(s.dtab, f)
	mulInts(s.mixN, f)
	for _, ps := range [][]contPair{s.cp, s.mixM} {
		for i := range ps {
			p := &ps[i]
			p.n *= f
			p.m2i *= ff
			p.m2j *= ff
			p.c *= ff
		}
	}
}

func mulInts(x []int64, f int64) {
	for i := range x {
		x[i] *= f
	}
}
