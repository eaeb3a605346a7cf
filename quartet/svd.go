package quartet

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// singularValues returns the singular values of m in decreasing order. It
// reports false if the decomposition did not converge. The elements of m
// must be finite (gonum panics on NaN).
// fail is the table's test hook (Table.failSVD), usually nil.
func singularValues(m *mat.Dense, fail func(rows, cols int, dqds bool) bool) ([]float64, bool) {
	if fail != nil {
		if r, c := m.Dims(); fail(r, c, false) {
			return nil, false
		}
	}
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDNone) {
		return nil, false
	}
	return svd.Values(nil), true
}

// nuclearNorm returns Σ σ_i(m). (Singular values, not square roots of
// Gram eigenvalues: near-ties between pairings need the accuracy.) It
// reports false if the decomposition did not converge.
func nuclearNorm(m *mat.Dense, fail func(rows, cols int, dqds bool) bool) (float64, bool) {
	sv, ok := singularValues(m, fail)
	s := 0.0
	for _, v := range sv {
		s += v
	}
	return s, ok
}

// svdError is the failure of the decomposition of p's rows×cols unfolding.
func svdError(p Pairing, rows, cols int) error {
	return fmt.Errorf("quartet: the singular value decomposition of the %d×%d unfolding of %v did not converge: %w", rows, cols, p, ErrNumerical)
}

// A nuclearJob computes the nuclear norms of the three unfoldings of a
// table in six steps: each unfolding is reduced to bidiagonal form, then
// the singular values of its bidiagonal are found. Workers (the caller
// and helpers) take the reductions first and then the bidiagonal solves,
// so that on two cores the six steps split three and three (rather than
// the three whole decompositions two and one).
type nuclearJob struct {
	t      *Table
	ws     [3]svdWork
	scores [3]float64
	// errs[p] is set when p's score could not be computed (its score is
	// then NaN).
	errs [3]error
	// direct[p] is set when the reduction step settled p's score: by
	// nuclearNorm (an unfolding dgesvd would scale), or as a failure (a
	// NaN or infinite cell, a decomposition that did not converge).
	direct     [3]bool
	nextReduce atomic.Int32
	nextSolve  atomic.Int32
	// reduced[p] is set when pairing p's reduction is done.
	reduced [3]atomic.Bool
}

var nuclearJobs = sync.Pool{New: func() any {
	return new(nuclearJob)
}}

// run takes steps of the job until none is left.
func (j *nuclearJob) run() {
	for {
		if p := int(j.nextReduce.Add(1)) - 1; p < 3 {
			j.reduce(Pairing(p))
			j.reduced[p].Store(true)
			continue
		}
		p := int(j.nextSolve.Add(1)) - 1
		if p >= 3 {
			return
		}
		// Every reduction has been taken by a worker that does not wait,
		// so this wait ends; it is short, as reductions are taken first.
		for !j.reduced[p].Load() {
			runtime.Gosched()
		}
		j.solve(Pairing(p))
	}
}

// reduce writes the unfolding of p into its workspace and reduces it to
// bidiagonal form (or settles its score, see direct).
func (j *nuclearJob) reduce(p Pairing) {
	w := &j.ws[p]
	m, n := j.t.unfoldingShape(p)
	w.reserve(m, n)
	j.t.unfoldInto(p, w.a)
	finite, safe := checkForSVD(w.a)
	j.direct[p] = !safe
	switch {
	case !finite:
		j.fail(p, j.t.nonFinite())
	case !safe:
		s, ok := nuclearNorm(mat.NewDense(m, n, w.a), j.t.failSVD)
		if !ok {
			j.fail(p, svdError(p, m, n))
			return
		}
		j.scores[p] = s
	default:
		w.bidiagonalize()
	}
}

// fail records that p's score could not be computed.
func (j *nuclearJob) fail(p Pairing, err error) {
	j.scores[p] = math.NaN()
	j.errs[p] = err
}

// solve sums the singular values of p's bidiagonal.
func (j *nuclearJob) solve(p Pairing) {
	if j.direct[p] {
		return
	}
	sv, ok := j.ws[p].bidiagonalValues(j.t.failSVD)
	if !ok {
		// dqds did not converge: leave it to the general SVD.
		s, ok := nuclearNorm(j.t.Unfolding(p), j.t.failSVD)
		if !ok {
			m, n := j.t.unfoldingShape(p)
			j.fail(p, svdError(p, m, n))
			return
		}
		j.scores[p] = s
		return
	}
	s := 0.0
	for _, v := range sv {
		s += v
	}
	j.scores[p] = s
}

// svdWork holds an m×n row-major matrix and the workspace to find its
// singular values: Householder bidiagonalization (LAPACK dgebd2) followed
// by the dqds algorithm on the bidiagonal (dlasq1), the steps LAPACK's
// dgesvd takes for singular values only (the same values, to the bit, for
// matrices that are not much taller than wide or wider than tall), without
// its allocations and max-norm pass. The reduction is unblocked: dgebrd
// itself uses dgebd2 below 128 columns, and blocking with dlabrd and dgemm
// measured about twice as slow as dgebd2 on 100×100 matrices.
type svdWork struct {
	m, n                   int
	a                      []float64
	d, e, tauQ, tauP, work []float64
}

// reserve sizes the workspace for an m×n matrix; w.a then has length m·n.
func (w *svdWork) reserve(m, n int) {
	k := min(m, n)
	w.m, w.n = m, n
	w.a = grow(w.a, m*n)
	w.d = grow(w.d, k)
	w.e = grow(w.e, k)
	w.tauQ = grow(w.tauQ, k)
	w.tauP = grow(w.tauP, k)
	w.work = grow(w.work, max(m, n, 4*k))
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// Scaling thresholds of dgesvd: matrices whose largest element is outside
// [svdSmall, svdBig] are scaled before the decomposition.
var (
	svdSmall = math.Sqrt(0x1p-1022) / 0x1p-53
	svdBig   = 1 / svdSmall
)

// checkForSVD reports whether the elements a are finite, and whether a
// matrix of them can go to svdWork without the scaling dgesvd would apply:
// its elements are finite and the largest magnitude is zero or within
// [svdSmall, svdBig].
func checkForSVD(a []float64) (finite, safe bool) {
	// NaN and ±Inf show in the sums (four, to run in parallel); a sum
	// overflowing to +Inf means an element above svdBig anyway.
	a0 := a
	var mx, s0, s1, s2, s3 float64
	for ; len(a) >= 4; a = a[4:] {
		v0, v1, v2, v3 := math.Abs(a[0]), math.Abs(a[1]), math.Abs(a[2]), math.Abs(a[3])
		s0 += v0
		s1 += v1
		s2 += v2
		s3 += v3
		if v0 > mx {
			mx = v0
		}
		if v1 > mx {
			mx = v1
		}
		if v2 > mx {
			mx = v2
		}
		if v3 > mx {
			mx = v3
		}
	}
	for _, x := range a {
		v := math.Abs(x)
		s0 += v
		if v > mx {
			mx = v
		}
	}
	if s := s0 + s1 + s2 + s3; math.IsNaN(s) || math.IsInf(s, 0) {
		// A NaN or an infinite element, or a sum that overflows (then an
		// element exceeds svdBig, and the matrix needs scaling).
		return !hasNonFinite(a0), false
	}
	return true, mx == 0 || (mx >= svdSmall && mx <= svdBig)
}

// hasNonFinite reports whether a holds a NaN or an infinite element.
func hasNonFinite(a []float64) bool {
	for _, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// bidiagonalize reduces w.a, overwritten, to the bidiagonal d, e (upper
// when m ≥ n, lower otherwise; the singular values are the same).
func (w *svdWork) bidiagonalize() {
	if w.m == 0 || w.n == 0 {
		return
	}
	lapackImpl.Dgebd2(w.m, w.n, w.a, w.n, w.d, w.e, w.tauQ, w.tauP, w.work)
}

// bidiagonalValues returns the singular values of the bidiagonal, in
// decreasing order, overwriting d and e. It reports false if dqds failed.
func (w *svdWork) bidiagonalValues(fail func(rows, cols int, dqds bool) bool) ([]float64, bool) {
	k := min(w.m, w.n)
	if k == 0 {
		return w.d[:0], true
	}
	if fail != nil && fail(w.m, w.n, true) {
		return nil, false
	}
	if lapackImpl.Dlasq1(k, w.d, w.e, w.work) != 0 {
		return nil, false
	}
	return w.d[:k], true
}

var lapackImpl gonum.Implementation
