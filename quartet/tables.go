package quartet

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Table is a 4-way joint table: N[i] states per variable and P the counts
// or probabilities, row-major (variable 0 slowest).
type Table struct {
	N [4]int
	P []float64

	// failSVD, when not nil, is asked before each decomposition whether
	// it should fail as if LAPACK had not converged (dqds true for the
	// dqds step on a bidiagonal, false for the general SVD). Only tests
	// set it.
	failSVD func(rows, cols int, dqds bool) bool
}

// NewTable returns a probability table from 4-way counts.
func NewTable(n [4]int, counts []int64) (*Table, error) {
	t := new(Table)
	if err := t.setCounts(n, counts); err != nil {
		return nil, err
	}
	return t, nil
}

// setCounts makes t the probability table of the counts, reusing t.P.
func (t *Table) setCounts(n [4]int, counts []int64) error {
	size := n[0] * n[1] * n[2] * n[3]
	if len(counts) != size {
		return fmt.Errorf("quartet: %d counts for a %d×%d×%d×%d table", len(counts), n[0], n[1], n[2], n[3])
	}
	total := 0.0
	for _, c := range counts {
		total += float64(c)
	}
	if !(total > 0) {
		return errors.New("quartet: no rows observe all four variables")
	}
	t.N = n
	t.P = grow(t.P, size)
	inv := 1 / total
	for i, c := range counts {
		t.P[i] = float64(c) * inv
	}
	return nil
}

// Unfolding returns the matrix of pairing p: rows indexed by the states of
// its first pair, columns by those of the second. For P01 it is a view of
// the table (no copy).
func (t *Table) Unfolding(p Pairing) *mat.Dense {
	n := t.N
	if p == P01 {
		return mat.NewDense(n[0]*n[1], n[2]*n[3], t.P)
	}
	rows, cols := t.unfoldingShape(p)
	dst := make([]float64, rows*cols)
	t.unfoldInto(p, dst)
	return mat.NewDense(rows, cols, dst)
}

// unfoldingShape returns the numbers of rows and columns of the unfolding
// of pairing p.
func (t *Table) unfoldingShape(p Pairing) (rows, cols int) {
	n := t.N
	switch p {
	case P01:
		return n[0] * n[1], n[2] * n[3]
	case P02:
		return n[0] * n[2], n[1] * n[3]
	default:
		return n[0] * n[3], n[1] * n[2]
	}
}

// unfoldInto writes the unfolding of pairing p, row-major, into dst, which
// must have length len(t.P).
func (t *Table) unfoldInto(p Pairing, dst []float64) {
	n0, n1, n2, n3 := t.N[0], t.N[1], t.N[2], t.N[3]
	src := t.P[:n0*n1*n2*n3]
	dst = dst[:len(src)]
	switch p {
	case P01:
		copy(dst, src)
	case P02:
		// Row a·n2+c, column b·n3+d.
		cols := n1 * n3
		for a := 0; a < n0; a++ {
			for b := 0; b < n1; b++ {
				for c := 0; c < n2; c++ {
					s := src[((a*n1+b)*n2+c)*n3:][:n3]
					copy(dst[(a*n2+c)*cols+b*n3:][:n3], s)
				}
			}
		}
	default:
		// Row a·n3+d, column b·n2+c.
		cols := n1 * n2
		for a := 0; a < n0; a++ {
			for b := 0; b < n1; b++ {
				for c := 0; c < n2; c++ {
					s := src[((a*n1+b)*n2+c)*n3:][:n3]
					o := dst[a*n3*cols+b*n2+c:]
					for d, v := range s {
						o[d*cols] = v
					}
				}
			}
		}
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

// Nuclear resolves the quartet by the nuclear-norm test (Algorithm 1):
// the pairing whose unfolding has the smallest sum of singular values.
// A margin below minMargin gives Unresolved. A table that is not 4-way
// or holds a NaN or infinite cell, or a decomposition that does not
// converge, gives a failed result (Result.Err).
func (t *Table) Nuclear(minMargin float64) Result {
	return t.nuclear(minMargin, true)
}

// check reports a table whose shape does not match its cells.
func (t *Table) check() error {
	size := 1
	for _, n := range t.N {
		if n < 1 {
			return fmt.Errorf("quartet: table of %d×%d×%d×%d states", t.N[0], t.N[1], t.N[2], t.N[3])
		}
		size *= n
	}
	if len(t.P) != size {
		return fmt.Errorf("quartet: %d cells for a %d×%d×%d×%d table", len(t.P), t.N[0], t.N[1], t.N[2], t.N[3])
	}
	return nil
}

// nonFinite returns the error naming the first NaN or infinite cell of the
// table, or nil.
func (t *Table) nonFinite() error {
	for idx, p := range t.P {
		if !math.IsNaN(p) && !math.IsInf(p, 0) {
			continue
		}
		var x [4]int
		for v := 3; v >= 0; v-- {
			x[v] = idx % t.N[v]
			idx /= t.N[v]
		}
		return fmt.Errorf("quartet: table cell (%d,%d,%d,%d) is %v: %w", x[0], x[1], x[2], x[3], p, ErrNumerical)
	}
	return nil
}

// nuclear is Nuclear; with concurrent false it runs on the calling
// goroutine only (for callers that already run tests in parallel).
func (t *Table) nuclear(minMargin float64, concurrent bool) Result {
	if err := t.check(); err != nil {
		return decide(Result{Err: err}, false, minMargin)
	}
	j := nuclearJobs.Get().(*nuclearJob)
	j.t = t
	j.errs = [3]error{}
	j.nextReduce.Store(0)
	j.nextSolve.Store(0)
	for p := range j.reduced {
		j.reduced[p].Store(false)
	}
	nh := 0
	if concurrent && len(t.P) >= 256 {
		// Large unfoldings: the steps run concurrently, on up to three
		// cores.
		nh = min(runtime.GOMAXPROCS(0), 3) - 1
	}
	var wg sync.WaitGroup
	for range nh {
		wg.Go(j.run)
	}
	j.run()
	wg.Wait()
	var r Result
	r.Scores = j.scores
	for _, err := range j.errs {
		if err != nil {
			r.Err = err
			break
		}
	}
	j.t = nil
	j.errs = [3]error{}
	nuclearJobs.Put(j)
	return decide(r, false, minMargin)
}

// Spectral resolves the quartet by Spectral@k (Anandkumar et al. 2011):
// the pairing {i,j|k,l} maximising Π_{s≤k} σ_s(P_ij) σ_s(P_kl), computed
// in log space. Failures are reported as by Nuclear.
func (t *Table) Spectral(k int, minMargin float64) Result {
	var r Result
	if r.Err = t.check(); r.Err == nil {
		r.Err = t.nonFinite()
	}
	if r.Err != nil {
		return decide(r, true, minMargin)
	}
	logprod := func(i, j int) (float64, error) {
		m := t.Pair(i, j)
		sv, ok := singularValues(m, t.failSVD)
		if !ok {
			rows, cols := m.Dims()
			return math.NaN(), fmt.Errorf("quartet: the singular value decomposition of the %d×%d table of variables %d and %d did not converge: %w", rows, cols, i, j, ErrNumerical)
		}
		s := 0.0
		for x := 0; x < k && x < len(sv); x++ {
			if !(sv[x] > 0) {
				return math.Inf(-1), nil
			}
			s += math.Log(sv[x])
		}
		return s, nil
	}
	for p := P01; p <= P03; p++ {
		a, b := p.Pairs()
		la, errA := logprod(a[0], a[1])
		lb, errB := logprod(b[0], b[1])
		r.Scores[p] = la + lb
		if err := cmp.Or(errA, errB); err != nil && r.Err == nil {
			r.Err = err
		}
	}
	return decide(r, true, minMargin)
}
