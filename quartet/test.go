package quartet

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/lapack/gonum"
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
	return t.nuclear(minMargin, true)
}

// nuclear is Nuclear; with concurrent false it runs on the calling
// goroutine only (for callers that already run tests in parallel).
func (t *Table) nuclear(minMargin float64, concurrent bool) Result {
	j := nuclearJobs.Get().(*nuclearJob)
	j.t = t
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
	j.t = nil
	nuclearJobs.Put(j)
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
	// direct[p] is set when the reduction step computed p's score by
	// nuclearNorm (an unfolding dgesvd would scale).
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
// bidiagonal form.
func (j *nuclearJob) reduce(p Pairing) {
	w := &j.ws[p]
	m, n := j.t.unfoldingShape(p)
	w.reserve(m, n)
	j.t.unfoldInto(p, w.a)
	j.direct[p] = !safeForSVD(w.a)
	if j.direct[p] {
		j.scores[p] = nuclearNorm(mat.NewDense(m, n, w.a))
		return
	}
	w.bidiagonalize()
}

// solve sums the singular values of p's bidiagonal.
func (j *nuclearJob) solve(p Pairing) {
	if j.direct[p] {
		return
	}
	sv, ok := j.ws[p].bidiagonalValues()
	if !ok {
		// dqds did not converge: leave it to the general SVD.
		j.scores[p] = nuclearNorm(j.t.Unfolding(p))
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

// safeForSVD reports whether a matrix of the elements a can go to
// svdWork without the scaling dgesvd would apply: its elements are finite
// and the largest magnitude is zero or within [svdSmall, svdBig].
func safeForSVD(a []float64) bool {
	// NaN and ±Inf show in the sums (four, to run in parallel); a sum
	// overflowing to +Inf means an element above svdBig anyway.
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
		return false
	}
	return mx == 0 || (mx >= svdSmall && mx <= svdBig)
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
func (w *svdWork) bidiagonalValues() ([]float64, bool) {
	k := min(w.m, w.n)
	if k == 0 {
		return w.d[:0], true
	}
	if lapackImpl.Dlasq1(k, w.d, w.e, w.work) != 0 {
		return nil, false
	}
	return w.d[:k], true
}

var lapackImpl gonum.Implementation

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
