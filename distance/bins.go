package distance

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/latentree/latentree/data"
)

// BinsFor returns the number of quantile bins QuantileBins should cut the
// continuous columns into for the Mixed distance of rank k (k−1 canonical
// correlations): max(k, 5). Each continuous column then has at least k
// bins, as the rank-k discrete distance needs, and five bins keep most of
// a column's dependence when k is small.
func BinsFor(k int) int { return max(k, 5) }

// QuantileBins returns a copy of d whose continuous columns are replaced
// by discrete ones: the index of the quantile bin of each value among q
// bins of about equal counts (a missing value stays missing). Bins are cut
// at the values of ranks ⌈b·n/q⌉ (b = 1, …, q−1) of the n observed values;
// a value equal to a cut falls in the lower bin, and ties that would
// leave a bin empty merge it with the next, so a column has at most q
// bins, all occupied, labelled "q1", "q2", …. Discrete columns are copied.
//
// It is the way to the Mixed distance of rank k > 2 (the discrete rank-k
// distance of the binned data; see "Mixed data" in the package
// documentation): a bin is a function of its variable, so binning keeps
// every conditional independence of the tree.
func QuantileBins(d *data.Dataset, q int) (*data.Dataset, error) {
	if d == nil {
		return nil, errors.New("distance: no dataset to bin")
	}
	if q < 2 || q > data.MaxStates {
		return nil, fmt.Errorf("distance: %d quantile bins: want 2 to %d", q, data.MaxStates)
	}
	vars := d.Vars()
	cuts := make([][]float64, len(vars))
	for j, v := range vars {
		if v.Kind != data.Continuous {
			continue
		}
		cuts[j] = quantileCuts(d.Continuous(j), d.RowWeights(), q)
		v.Kind = data.Discrete
		v.States = make([]string, len(cuts[j])+1)
		for b := range v.States {
			v.States[b] = fmt.Sprintf("q%d", b+1)
		}
		vars[j] = v
	}
	out, err := data.New(vars, d.NumRows())
	if err != nil {
		return nil, err
	}
	for j := range vars {
		dst := out.Discrete(j)
		if cuts[j] == nil {
			copy(dst, d.Discrete(j))
			continue
		}
		c := cuts[j]
		for r, x := range d.Continuous(j) {
			if math.IsNaN(x) {
				dst[r] = data.Missing
				continue
			}
			// The first cut at or above x.
			dst[r] = uint16(sort.SearchFloat64s(c, x))
		}
	}
	if d.Weighted() {
		if err := out.SetWeights(d.Weights(), d.WeightKind()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// quantileCuts returns the distinct cut points of q quantile bins of the
// observed values of col, without a cut at the largest value (which would
// leave the top bin empty): a value v is in bin #{cuts < v}. With row
// weights w (nil: 1 each) each value counts its weight: whole-number
// weights give the cuts of the rows repeated by their weights.
func quantileCuts(col, w []float64, q int) []float64 {
	vals, cum := data.SortedValues(col, w)
	if len(vals) == 0 {
		return []float64{}
	}
	n := cum[len(cum)-1]
	top := vals[len(vals)-1]
	cuts := []float64{}
	for b := 1; b < q; b++ {
		// The value of rank ⌈b·n/q⌉ (1-based): the first whose
		// cumulative weight reaches b·n/q.
		want := float64(b) * n / float64(q)
		i := sort.Search(len(cum), func(i int) bool { return cum[i] >= want })
		c := vals[min(i, len(vals)-1)]
		if c < top && (len(cuts) == 0 || c > cuts[len(cuts)-1]) {
			cuts = append(cuts, c)
		}
	}
	return cuts
}
