package quartet

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Pairing identifies one of the three ways of splitting four variables
// (indexed 0..3) into two pairs.
type Pairing int

const (
	// P01 is {0,1 | 2,3} (unfolding A).
	P01 Pairing = iota
	// P02 is {0,2 | 1,3} (unfolding B).
	P02
	// P03 is {0,3 | 1,2} (unfolding C).
	P03
	// Unresolved means the test's margin was below the threshold.
	Unresolved Pairing = -1
)

// Pairs returns the two pairs of the pairing.
func (p Pairing) Pairs() ([2]int, [2]int) {
	switch p {
	case P01:
		return [2]int{0, 1}, [2]int{2, 3}
	case P02:
		return [2]int{0, 2}, [2]int{1, 3}
	case P03:
		return [2]int{0, 3}, [2]int{1, 2}
	}
	return [2]int{-1, -1}, [2]int{-1, -1}
}

func (p Pairing) String() string {
	if p == Unresolved {
		return "unresolved"
	}
	a, b := p.Pairs()
	return fmt.Sprintf("{%d,%d|%d,%d}", a[0], a[1], b[0], b[1])
}

// Result is the outcome of a quartet test.
type Result struct {
	// Pairing is the chosen pairing, or Unresolved when the margin is
	// below the threshold asked for.
	Pairing Pairing
	// Best is the pairing with the best score, even when unresolved.
	Best Pairing
	// Scores are the test's scores of the three pairings (P01, P02, P03);
	// the chosen pairing has the best score (smallest for nuclear norms
	// and distance sums, largest for Spectral@k).
	Scores [3]float64
	// Margin is the gap between the best and the second-best score,
	// relative to the best score's magnitude.
	Margin float64
}

// Table is a 4-way joint table: N[i] states per variable and P the counts
// or probabilities, row-major (variable 0 slowest).
type Table struct {
	N [4]int
	P []float64
}

// NewTable returns a probability table from 4-way counts.
func NewTable(n [4]int, counts []int64) (*Table, error) {
	size := n[0] * n[1] * n[2] * n[3]
	if len(counts) != size {
		return nil, fmt.Errorf("quartet: %d counts for a %d×%d×%d×%d table", len(counts), n[0], n[1], n[2], n[3])
	}
	t := &Table{N: n, P: make([]float64, size)}
	total := 0.0
	for _, c := range counts {
		total += float64(c)
	}
	if !(total > 0) {
		return nil, errors.New("quartet: no rows observe all four variables")
	}
	for i, c := range counts {
		t.P[i] = float64(c) / total
	}
	return t, nil
}

// Unfolding returns the matrix of pairing p: rows indexed by the states of
// its first pair, columns by those of the second. For P01 it is a view of
// the table (no copy).
func (t *Table) Unfolding(p Pairing) *mat.Dense {
	n := t.N
	switch p {
	case P01:
		return mat.NewDense(n[0]*n[1], n[2]*n[3], t.P)
	case P02:
		m := mat.NewDense(n[0]*n[2], n[1]*n[3], nil)
		for a := 0; a < n[0]; a++ {
			for b := 0; b < n[1]; b++ {
				for c := 0; c < n[2]; c++ {
					for d := 0; d < n[3]; d++ {
						m.Set(a*n[2]+c, b*n[3]+d, t.P[((a*n[1]+b)*n[2]+c)*n[3]+d])
					}
				}
			}
		}
		return m
	default:
		m := mat.NewDense(n[0]*n[3], n[1]*n[2], nil)
		for a := 0; a < n[0]; a++ {
			for b := 0; b < n[1]; b++ {
				for c := 0; c < n[2]; c++ {
					for d := 0; d < n[3]; d++ {
						m.Set(a*n[3]+d, b*n[2]+c, t.P[((a*n[1]+b)*n[2]+c)*n[3]+d])
					}
				}
			}
		}
		return m
	}
}

// Pair returns the 2-way marginal table of variables i < j (n_i × n_j).
func (t *Table) Pair(i, j int) *mat.Dense {
	n := t.N
	m := mat.NewDense(n[i], n[j], nil)
	var x [4]int
	for idx, p := range t.P {
		r := idx
		for v := 3; v >= 0; v-- {
			x[v] = r % n[v]
			r /= n[v]
		}
		m.Set(x[i], x[j], m.At(x[i], x[j])+p)
	}
	return m
}

func singularValues(m *mat.Dense) []float64 {
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDNone) {
		return nil
	}
	return svd.Values(nil)
}

// Nuclear resolves the quartet by the nuclear-norm test (Algorithm 1):
// the pairing whose unfolding has the smallest sum of singular values.
// A margin below minMargin gives Unresolved.
func (t *Table) Nuclear(minMargin float64) Result {
	var r Result
	if len(t.P) < 256 {
		for p := P01; p <= P03; p++ {
			r.Scores[p] = nuclearNorm(t.Unfolding(p))
		}
		return decide(r, false, minMargin)
	}
	// Large unfoldings: the three decompositions run concurrently.
	var wg sync.WaitGroup
	for p := P01; p <= P03; p++ {
		wg.Add(1)
		go func(p Pairing) {
			defer wg.Done()
			r.Scores[p] = nuclearNorm(t.Unfolding(p))
		}(p)
	}
	wg.Wait()
	return decide(r, false, minMargin)
}

// nuclearNorm returns Σ σ_i(m). (Singular values, not square roots of
// Gram eigenvalues: near-ties between pairings need the accuracy.)
func nuclearNorm(m *mat.Dense) float64 {
	s := 0.0
	for _, v := range singularValues(m) {
		s += v
	}
	return s
}

// Spectral resolves the quartet by Spectral@k (Anandkumar et al. 2011):
// the pairing {i,j|k,l} maximising Π_{s≤k} σ_s(P_ij) σ_s(P_kl), computed
// in log space.
func (t *Table) Spectral(k int, minMargin float64) Result {
	logprod := func(i, j int) float64 {
		sv := singularValues(t.Pair(i, j))
		s := 0.0
		for x := 0; x < k && x < len(sv); x++ {
			if !(sv[x] > 0) {
				return math.Inf(-1)
			}
			s += math.Log(sv[x])
		}
		return s
	}
	var r Result
	for p := P01; p <= P03; p++ {
		a, b := p.Pairs()
		r.Scores[p] = logprod(a[0], a[1]) + logprod(b[0], b[1])
	}
	return decide(r, true, minMargin)
}

// FourPoint resolves a quartet from distances: the pairing {i,j|k,l}
// minimising d_ij + d_kl (the four-point condition). d(i,j) gives the
// distance between quartet members i and j.
func FourPoint(d func(i, j int) float64, minMargin float64) Result {
	var r Result
	for p := P01; p <= P03; p++ {
		a, b := p.Pairs()
		r.Scores[p] = d(a[0], a[1]) + d(b[0], b[1])
	}
	return decide(r, false, minMargin)
}

// decide picks the best score and computes the margin.
func decide(r Result, larger bool, minMargin float64) Result {
	best, second := -1, -1
	better := func(a, b float64) bool {
		if math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		if larger {
			return a > b
		}
		return a < b
	}
	for p := 0; p < 3; p++ {
		switch {
		case best < 0 || better(r.Scores[p], r.Scores[best]):
			second, best = best, p
		case second < 0 || better(r.Scores[p], r.Scores[second]):
			second = p
		}
	}
	r.Pairing, r.Best = Pairing(best), Pairing(best)
	gap := math.Abs(r.Scores[second] - r.Scores[best])
	if den := math.Abs(r.Scores[best]); den > 0 && !math.IsInf(den, 0) {
		r.Margin = gap / den
	} else {
		r.Margin = gap
	}
	if math.IsNaN(r.Margin) || r.Margin < minMargin {
		r.Pairing = Unresolved
	}
	return r
}
