package data

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// WeightKind says what a dataset's row weights mean.
type WeightKind uint8

const (
	// Frequency weights are whole numbers of copies: a row of weight w
	// stands for w identical rows, so a table of the distinct rows with
	// their counts gives exactly the fit, scores and statistics of the
	// expanded table, and the sample size n (BIC's) is the sum of the
	// weights.
	Frequency WeightKind = iota
	// Sampling weights are non-negative reals proportional to the inverse
	// of each row's probability of selection. They are normalised to sum
	// to the number of rows (RowWeights), so the sample size n is the
	// number of rows and the fit is the pseudo-maximum-likelihood one
	// (weighted log-likelihood); model-based standard errors do not hold
	// for them.
	Sampling
)

func (k WeightKind) String() string {
	switch k {
	case Frequency:
		return "frequency"
	case Sampling:
		return "sampling"
	}
	return fmt.Sprintf("WeightKind(%d)", uint8(k))
}

// ParseWeightKind reads "frequency" (or "" ) and "sampling".
func ParseWeightKind(s string) (WeightKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "frequency", "freq":
		return Frequency, nil
	case "sampling", "survey":
		return Sampling, nil
	}
	return 0, fmt.Errorf("data: unknown weight kind %q (want frequency or sampling)", s)
}

// Weighted reports whether the dataset's rows carry weights.
func (d *Dataset) Weighted() bool { return d.weights != nil }

// Weights returns the row weights as given (shared, not copied), nil when
// every row counts once.
func (d *Dataset) Weights() []float64 { return d.weights }

// WeightKind returns the kind of the row weights (Frequency when there
// are none).
func (d *Dataset) WeightKind() WeightKind { return d.wkind }

// RowWeights returns the weight of each row in sums over rows (counts,
// moments, log-likelihoods): frequency weights as given, sampling
// weights scaled to sum to the number of rows; nil when the rows are
// unweighted (every row counts 1). The slice is a new one for sampling
// weights and shared otherwise.
func (d *Dataset) RowWeights() []float64 {
	if d.weights == nil || d.wkind == Frequency {
		return d.weights
	}
	s := 0.0
	for _, w := range d.weights {
		s += w
	}
	f := float64(d.rows) / s
	out := make([]float64, len(d.weights))
	for i, w := range d.weights {
		out[i] = w * f
	}
	return out
}

// SampleSize returns n, the number of observations the rows stand for:
// the sum of frequency weights, else the number of rows. It is the n of
// BIC and of per-row averages.
func (d *Dataset) SampleSize() float64 {
	if d.weights == nil || d.wkind == Sampling {
		return float64(d.rows)
	}
	s := 0.0
	for _, w := range d.weights {
		s += w
	}
	return s
}

// WeightedSum returns Σ_r w_r x_r with the row weights (RowWeights; 1
// each when unweighted). A row of weight 0 adds nothing, even when its
// x_r is infinite (a log-likelihood of −∞).
func (d *Dataset) WeightedSum(x []float64) float64 {
	w := d.RowWeights()
	s := 0.0
	for r, v := range x {
		switch {
		case w == nil:
			s += v
		case w[r] != 0:
			s += w[r] * v
		}
	}
	return s
}

// SetWeights sets the row weights (used, not copied): one per row, finite
// and non-negative, not all 0; frequency weights must be whole numbers.
// Nil w removes the weights. Errors name the first bad row (1-based).
func (d *Dataset) SetWeights(w []float64, kind WeightKind) error {
	if w == nil {
		d.weights, d.wkind = nil, Frequency
		return nil
	}
	if kind != Frequency && kind != Sampling {
		return fmt.Errorf("data: unknown weight kind %d", uint8(kind))
	}
	if err := checkWeights(w, d.rows, kind); err != nil {
		return err
	}
	d.weights, d.wkind = w, kind
	return nil
}

// maxFrequencyWeight bounds a frequency weight so that sums of counts stay
// exact in float64 and int64.
const maxFrequencyWeight = 1 << 52

func checkWeights(w []float64, rows int, kind WeightKind) error {
	if len(w) != rows {
		return fmt.Errorf("data: %d weights for %d rows", len(w), rows)
	}
	total := 0.0
	for i, x := range w {
		if err := checkWeight(x, kind); err != nil {
			return fmt.Errorf("data: row %d: %w", i+1, err)
		}
		total += x
	}
	if !(total > 0) {
		return errors.New("data: every weight is 0")
	}
	if math.IsInf(total, 0) || kind == Frequency && total > maxFrequencyWeight {
		return fmt.Errorf("data: the weights sum to %g, too large", total)
	}
	return nil
}

func checkWeight(x float64, kind WeightKind) error {
	switch {
	case math.IsNaN(x):
		return errors.New("missing weight")
	case math.IsInf(x, 0):
		return fmt.Errorf("weight %g is not finite", x)
	case x < 0:
		return fmt.Errorf("weight %g is negative", x)
	case kind == Frequency && (x != math.Trunc(x) || x > maxFrequencyWeight):
		return fmt.Errorf("frequency weight %g is not a whole number of copies (sampling weights may be fractions)", x)
	}
	return nil
}

// WeightBy returns the dataset without the column name, whose values
// become the row weights of the given kind (see SetWeights). The column
// may be continuous or discrete with numeric state labels. Other columns
// are shared with d. Errors name the column and the first bad row.
func (d *Dataset) WeightBy(name string, kind WeightKind) (*Dataset, error) {
	j, ok := d.index[name]
	if !ok {
		return nil, fmt.Errorf("data: no weight column %q", name)
	}
	w := make([]float64, d.rows)
	if codes := d.disc[j]; codes != nil {
		labels := d.vars[j].States
		val := make([]float64, len(labels))
		for s, l := range labels {
			x, err := strconv.ParseFloat(l, 64)
			if err != nil {
				x = math.Inf(-1) // reported at its first row
			}
			val[s] = x
		}
		for i, c := range codes {
			if c == Missing {
				return nil, fmt.Errorf("data: row %d, weight column %q: missing weight", i+1, name)
			}
			if math.IsInf(val[c], -1) {
				return nil, fmt.Errorf("data: row %d, weight column %q: %s is not a number", i+1, name, QuoteCell(labels[c]))
			}
			w[i] = val[c]
		}
	} else {
		copy(w, d.cont[j])
	}
	if len(d.vars) == 1 {
		return nil, fmt.Errorf("data: the weight column %q is the only column", name)
	}
	cols := make([]int, 0, len(d.vars)-1)
	for k := range d.vars {
		if k != j {
			cols = append(cols, k)
		}
	}
	out, err := d.Select(cols)
	if err != nil {
		return nil, err
	}
	if err := checkWeights(w, d.rows, kind); err != nil {
		var row int
		for i, x := range w {
			if checkWeight(x, kind) != nil {
				row = i + 1
				err = checkWeight(x, kind)
				break
			}
		}
		if row > 0 {
			return nil, fmt.Errorf("data: row %d, weight column %q: %w", row, name, err)
		}
		return nil, fmt.Errorf("data: weight column %q: %s", name, strings.TrimPrefix(err.Error(), "data: "))
	}
	out.weights, out.wkind = w, kind
	return out, nil
}

// SortedValues returns the observed values of col (not NaN, and of
// positive weight when w, the row weights, is not nil) in increasing
// order, with the cumulative weight up to and including each (1, 2, 3, …
// when w is nil): the weighted empirical distribution quantiles are read
// from. With whole-number weights it is that of the rows repeated by
// their weights.
func SortedValues(col, w []float64) (vals, cum []float64) {
	type vw struct{ x, w float64 }
	pairs := make([]vw, 0, len(col))
	for r, x := range col {
		switch {
		case math.IsNaN(x):
		case w == nil:
			pairs = append(pairs, vw{x, 1})
		case w[r] > 0:
			pairs = append(pairs, vw{x, w[r]})
		}
	}
	slices.SortFunc(pairs, func(a, b vw) int { return cmp.Compare(a.x, b.x) })
	vals, cum = make([]float64, len(pairs)), make([]float64, len(pairs))
	acc := 0.0
	for i, p := range pairs {
		acc += p.w
		vals[i], cum[i] = p.x, acc
	}
	return vals, cum
}
