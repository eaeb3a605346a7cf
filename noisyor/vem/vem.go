package vem

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/noisyor"
)

// Variational EM for noisy-or networks (Šingliar & Hauskrecht, "Noisy-or
// component analysis and its application to link analysis", JMLR 7, 2006),
// with the lower bound on positive findings of Jaakkola & Jordan
// ("Variational probabilistic inference and the QMR-DT network", JAIR 10,
// 1999).
//
// Parametrisation. Write θ_{ja} = −log f_{ja} ≥ 0 for the edge from source j
// to effect a and θ_{0a} = −log(1−ν_a) for the leak. Then
//
//	P(a=0 | X) = exp(−θ_{0a} − Σ_j θ_{ja} X_j),
//	P(a=1 | X) = 1 − exp(−θ_{0a} − Σ_j θ_{ja} X_j) = exp g(θ_{0a} + Σ_j θ_{ja} X_j),
//
// with g(x) = log(1 − e^{−x}), which is increasing and concave on x > 0.
// Negative findings (a = 0) are exponentials linear in X and factorise
// over the sources exactly.
//
// Bound on a positive finding. For any distribution q_a(j) over the
// sources whose support contains every j with θ_{ja} > 0, Jensen's
// inequality on the concave g gives
//
//	g(θ_{0a} + Σ_j θ_{ja}X_j) = g(Σ_j q_{aj}(θ_{0a} + θ_{ja}X_j/q_{aj}))
//	                          ≥ Σ_j q_{aj} g(θ_{0a} + θ_{ja}X_j/q_{aj})
//	                          = Σ_j q_{aj} [X_j g(θ_{0a} + θ_{ja}/q_{aj}) + (1−X_j) g(θ_{0a})],
//
// linear in X (sources with q_{aj} = 0 drop out; the bound stays valid when
// such a source has θ_{ja} > 0, as g is increasing). Equality holds when
// all the arguments θ_{0a} + θ_{ja}X_j/q_{aj} are equal, e.g. when a has
// a single parent and q puts all its mass on it.
//
// Row bound. With q fixed for every positive finding of a row, the bounded
// joint P(X, row) is a product over sources, so its sum over X is exact:
//
//	log P(row) ≥ Σ_{a=0} (−θ_{0a}) + Σ_{a=1} g(θ_{0a}) + Σ_j log(1 − p_j + p_j e^{s_j}),
//	s_j = −Σ_{a=0} θ_{ja} + Σ_{a=1} q_{aj} [g(θ_{0a} + θ_{ja}/q_{aj}) − g(θ_{0a})],
//
// and the posterior of the bounded model factorises:
// μ_j = σ(logit p_j + s_j). Missing cells are marginalised: they are in
// neither sum. Equivalently the bound is max_μ J(μ, q) with
//
//	J = Σ_j [μ_j log p_j + (1−μ_j) log(1−p_j) + H(μ_j)] − Σ_{a=0}(θ_{0a} + Σ_j θ_{ja}μ_j)
//	    + Σ_{a=1} Σ_j q_{aj} [μ_j g(θ_{0a} + θ_{ja}/q_{aj}) + (1−μ_j) g(θ_{0a})],
//
// which the E- and M-steps below increase coordinate by coordinate.
//
// E-step (per row). Alternate (i) μ given q (the closed form above) and
// (ii) for each positive finding, q_a given μ: maximise over the simplex
// F_a(q) = Σ_j q_j μ_j [g(θ_0 + θ_j/q_j) − g(θ_0)], a sum of perspectives of
// the concave g, hence concave, with gradient
// ∂F/∂q_j = μ_j [g(θ_0+t_j) − t_j g′(θ_0+t_j) − g(θ_0)], t_j = θ_j/q_j.
// One exponentiated-gradient (mirror ascent) step
// q_j ← q_j e^{η ∂F/∂q_j} / Z is taken per finding and alternation. With
// L = max_j μ_j, |∂²F/∂q_j²| = μ_j t_j² |g″(θ_0+t_j)| / q_j ≤ L/q_j
// (because x²e^x/(e^x−1)² ≤ 1), so F is L-smooth relative to the entropy
// and η = 1/L cannot decrease F; the longer steps 8/L and 2/L are tried
// first, and the first step that increases F is taken (none: q is kept).
// q is floored at 1e-15 so that a source can regain mass later. Every
// step of (i) and (ii) increases the row's bound.
//
// Starting q. The row problem is not concave jointly in (μ, q) and has
// poor local optima: mass of q on a source switches it on (it avoids the
// factor e^{g(θ_0)} = ν_a), which keeps the mass on it. A fresh start puts
// q_{aj} ∝ μ⁰_j θ_{ja}, with μ⁰_j = σ(logit p_j − Σ_{a=0} θ_{ja}) the exact
// posterior of j given the negative findings alone (q ∝ θ_{ja}X_j is tight
// when X is known; μ⁰ keeps mass off sources whose children are off). q is
// kept per positive cell from one E-step to the next (8·K bytes per
// positive cell); every E-step after the first optimises each row both
// from the kept q and from a fresh start and keeps the better bound. The
// kept q alone makes the procedure monotone (the M-step below does not
// decrease J at the old μ, q; the E-step starting from the old q does not
// decrease the bound); the fresh start lets rows leave poor optima (on the
// 12-effect and 64-effect test networks it roughly doubles the share of
// random starts that find the true sources, for twice the E-step's cost).
// The total bound never decreases from one E-step to the next, up to
// rounding.
//
// M-step. With μ and q fixed, J is concave in each parameter and separable
// by effect. p_j = mean μ_j. For each effect a, each θ_{ja} maximises
// −θ Σ_{a=0 rows} μ_j + Σ_{a=1 rows} μ_j q_{aj} g(θ_{0a} + θ/q_{aj}); then
// θ_{0a} (unless the leaks are fixed) maximises
// −θ_0 N_a^0 + Σ_{a=1 rows} Σ_j q_{aj}[μ_j g(θ_0 + θ_{ja}/q_{aj}) + (1−μ_j) g(θ_0)].
// Each is a 1-D concave problem solved by Newton's method on the
// derivative in log θ inside a shrinking bracket (bisection when a step
// leaves it), stopped when the step in log θ is below 1e-11. Priors,
// failures and leaks are kept in [1e-6, 1 − 1e-6]: a failure of 0 would
// make the bound −∞ for rows where the effect is 0 and the source on, a
// leak of 0 where the effect is 1 and q has mass on a source that is off.
//
// Random starts. Priors uniform on [0.1, 0.4], every failure uniform on
// [0.5, 0.99] (every source a weak parent of every effect), leaks at
// Options.Leak, drawn from a generator of the start's own seeded from
// Options.Src.
//
// Work and determinism. The E-step runs over blocks of 256 rows on the
// workers; each row's results go to its own slots and the block sums are
// added in block order. The M-step runs over effects, each effect's sums
// in row order. Results are therefore the same for any number of workers.
// Memory: K floats per row (μ) and K per positive cell (q).

// Defaults and limits of Fit.
const (
	// DefaultRestarts is the number of random starts when
	// Options.Restarts is 0: the protocol of Jernite et al. (2013),
	// who kept the best of 16 starts. A start costs a full fit; many
	// starts end in poor local optima (a source that dies, two sources
	// merged), so fewer starts give worse networks.
	DefaultRestarts = 16
	// DefaultMaxIter bounds the EM iterations (E-steps) of one start.
	DefaultMaxIter = 500
	// DefaultTol is the relative change of the total bound that stops
	// a start.
	DefaultTol = 1e-6
	// DefaultLeak is the leak every effect starts from (and keeps, with
	// Options.FixLeak).
	DefaultLeak = 0.01
	// DefaultMaxFailure is the failure above which a fitted edge is
	// left out of the returned network.
	DefaultMaxFailure = 1 - 1e-3
	// DefaultInner is the number of q/μ alternations per row, start
	// and E-step.
	DefaultInner = 3
	// MinProb is the smallest prior, failure and leak the fit gives
	// (and 1 − MinProb the largest): a failure of 0 or a leak of 0
	// would make the bound −∞.
	MinProb = 1e-6
)

const (
	vemBlock = 256   // rows per block of parallel work
	vemQMin  = 1e-15 // floor of the variational distributions q
	vemEtaMx = 100   // largest exponentiated-gradient step
)

// Options configures Fit. The zero value, with Sources set, is
// usable.
type Options struct {
	// Sources is the number K of hidden sources (required, ≥ 1). Every
	// source may be a parent of every effect during the fit.
	Sources int
	// Restarts is the number of random starts (0: DefaultRestarts);
	// the start with the highest final bound is returned.
	Restarts int
	// MaxIter bounds the E-steps of each start (0: DefaultMaxIter).
	MaxIter int
	// Tol stops a start when the total bound changes by at most
	// Tol·|bound| from one E-step to the next (0: DefaultTol).
	Tol float64
	// Inner is the number of alternations between the source posteriors
	// μ and the variational distributions q per row and E-step (0:
	// DefaultInner); a row stops early when its bound stops improving.
	Inner int
	// Src drives the random starts; nil uses the fixed seed
	// rand.NewPCG(1, 2). Start i draws
	// its parameters from its own generator, seeded from Src in order.
	Src rand.Source
	// Workers is the number of goroutines (0: GOMAXPROCS). Rows are
	// processed in fixed blocks and summed in block order, so results do
	// not depend on it.
	Workers int
	// Leak is the leak every effect starts from, in [MinProb,
	// 1 − MinProb] (0: DefaultLeak).
	Leak float64
	// FixLeak keeps every leak at Leak instead of learning it.
	FixLeak bool
	// MaxFailure drops from the returned network the edges whose fitted
	// failure exceeds it (0: DefaultMaxFailure; 1 keeps every edge).
	// Result.Failures keeps all of them, and the bound is that of the
	// fitted, unpruned network.
	MaxFailure float64
	// Progress, if set, is called after every E-step with the start
	// (0-based), the E-steps done in it and the total bound.
	Progress func(start, iter int, bound float64)
}

// Start describes one random start of Fit.
type Start struct {
	// Bound is the total lower bound on the log-likelihood at the start's
	// final parameters.
	Bound float64 `json:"bound"`
	// Iterations counts the E-steps (the first is at the random start).
	Iterations int `json:"iterations"`
	// Converged reports that the tolerance, not MaxIter, ended the start.
	Converged bool `json:"converged"`
	// Trace holds the total bound after every E-step; it never decreases,
	// up to rounding.
	Trace []float64 `json:"trace,omitempty"`
	// Seconds is the start's running time.
	Seconds float64 `json:"seconds"`
}

// Result is the outcome of Fit.
type Result struct {
	// Network is the fitted network of the best start: sources named
	// X1..XK in decreasing order of prior (ties in start order), edges
	// with failure at most MaxFailure, the learned (or fixed) leaks.
	Network *noisyor.Network
	// Failures[s][a] is the fitted failure of every source–effect pair,
	// sources in Network's order, before pruning.
	Failures [][]float64
	// Bound is the best start's total lower bound on the log-likelihood
	// of the data under the unpruned fitted network.
	Bound float64
	// Iterations and Converged are those of the best start.
	Iterations int
	Converged  bool
	// Best is the index of the best start in Starts.
	Best int
	// Starts describes every start in order.
	Starts []Start
	// ClampedFailures counts the failures of the best start at the
	// smallest allowed value MinProb (deterministic edges).
	ClampedFailures int
	// Duration is the time of the whole fit.
	Duration time.Duration
}

// vemData is the data in the form the fit works on: the positive cells
// ("findings") in row order, and per effect the cells that are positive.
type vemData struct {
	rows, m   int
	rowStart  []int   // positive cells of row r: rowStart[r] ≤ c < rowStart[r+1]
	cellEff   []int32 // effect of cell c
	cellRow   []int32 // row of cell c
	effCells  [][]int32
	missStart []int // missing cells of row r: missEff[missStart[r]:missStart[r+1]]
	missEff   []int32
	zeros     [][]uint64
	neg       []int // observed zeros per effect
	maxCells  int   // most positive cells in a row
}

func newVEMData(b *noisyor.Binary) (*vemData, error) {
	m, rows := b.NumEffects(), b.Rows
	if int64(rows) > math.MaxInt32 {
		return nil, fmt.Errorf("noisyor: %d rows, at most %d", rows, math.MaxInt32)
	}
	d := &vemData{rows: rows, m: m, rowStart: make([]int, rows+1), missStart: make([]int, rows+1),
		effCells: make([][]int32, m), zeros: b.Zeros, neg: make([]int, m)}
	for a := range m {
		if len(b.Ones[a]) < (rows+63)/64 || len(b.Zeros[a]) < (rows+63)/64 {
			return nil, fmt.Errorf("noisyor: effect %q has %d words of data for %d rows", b.Names[a], len(b.Ones[a]), rows)
		}
		d.neg[a] = b.CountZeros(a)
	}
	for r := range rows {
		w, bit := r>>6, uint64(1)<<(r&63)
		for a := range m {
			switch {
			case b.Ones[a][w]&bit != 0:
				c := len(d.cellEff)
				if c >= math.MaxInt32 {
					return nil, errors.New("noisyor: too many positive cells")
				}
				d.cellEff = append(d.cellEff, int32(a))
				d.cellRow = append(d.cellRow, int32(r))
				d.effCells[a] = append(d.effCells[a], int32(c))
			case b.Zeros[a][w]&bit == 0:
				d.missEff = append(d.missEff, int32(a))
			}
		}
		d.rowStart[r+1] = len(d.cellEff)
		d.missStart[r+1] = len(d.missEff)
		d.maxCells = max(d.maxCells, d.rowStart[r+1]-d.rowStart[r])
	}
	return d, nil
}

// vemParams are the parameters in the θ form.
type vemParams struct {
	k, m  int
	prior []float64 // p_j
	th    []float64 // th[a*k+j] = θ_{ja} = −log f_{ja}
	th0   []float64 // θ_{0a} = −log(1 − ν_a)
}

func newVEMParams(k, m int) *vemParams {
	return &vemParams{k: k, m: m, prior: make([]float64, k), th: make([]float64, m*k), th0: make([]float64, m)}
}

// gfun returns g(x) = log(1 − e^{−x}) and g′(x) = 1/(e^x − 1) for x > 0.
func gfun(x float64) (g, gp float64) {
	if x > 745 { // e^{−x} underflows: common for sources whose q is at the floor
		return 0, 0
	}
	if x > math.Ln2 {
		// 1 − u is exact to half an ulp, so log(1 − u) is within about
		// 1e-16 of g in absolute terms, which is all the sums need.
		u := math.Exp(-x)
		return math.Log(1 - u), u / (1 - u)
	}
	e := math.Expm1(-x) // in (−1/2, 0]
	return math.Log(-e), (1 + e) / -e
}

// gprime returns g′(x) = 1/(e^x − 1) for x > 0.
func gprime(x float64) float64 {
	if x > 745 {
		return 0
	}
	if x > math.Ln2 {
		u := math.Exp(-x)
		return u / (1 - u)
	}
	e := math.Expm1(-x)
	return (1 + e) / -e
}

// gval returns g(x).
func gval(x float64) float64 {
	g, _ := gfun(x)
	return g
}

// softplus returns log(1 + e^z).
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// sigmoid returns 1/(1 + e^{−z}).
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// vemState is one start's state: parameters, variational distributions,
// posteriors and the data.
type vemState struct {
	d       *vemData
	p       *vemParams
	q       []float64 // q[c*k+j]: the distribution of positive cell c
	mu      []float64 // mu[r*k+j]: posterior of source j in row r
	inner   int
	fixLeak bool
	fresh   bool // the next E-step starts every row afresh (freshQ)
	workers int

	// Per E-step, from p: g(θ_{0a}), −Σ_a θ_{ja}, −Σ_a θ_{0a}, logit p_j
	// and log(1 − p_j).
	g0        []float64
	negBase   []float64
	constBase float64
	logit     []float64
	log1mp    []float64

	blockBound []float64
	blockMu    []float64 // nblocks*k
	scratch    []*vemScratch
}

// vemScratch is one worker's scratch space; nothing in it survives from
// one row (or effect) to the next.
type vemScratch struct {
	neg, grad, nq, ngv, ngp, acc []float64
	gv, gp                       []float64 // per cell of the row × k
	muG, qG                      []float64 // M-step gathers
	leakW, leakX                 []float64 // M-step leak terms
	qsave, musave                []float64
}

func newVEMState(d *vemData, k int, opt *Options) *vemState {
	nb := (d.rows + vemBlock - 1) / vemBlock
	st := &vemState{d: d, p: newVEMParams(k, d.m), q: make([]float64, len(d.cellEff)*k), mu: make([]float64, d.rows*k),
		inner: opt.Inner, fixLeak: opt.FixLeak, workers: opt.Workers,
		g0: make([]float64, d.m), negBase: make([]float64, k), logit: make([]float64, k), log1mp: make([]float64, k),
		blockBound: make([]float64, nb), blockMu: make([]float64, nb*k)}
	maxEff := 0
	for _, c := range d.effCells {
		maxEff = max(maxEff, len(c))
	}
	st.scratch = make([]*vemScratch, st.workers)
	for w := range st.scratch {
		st.scratch[w] = &vemScratch{neg: make([]float64, k), grad: make([]float64, k), nq: make([]float64, k),
			ngv: make([]float64, k), ngp: make([]float64, k), acc: make([]float64, k),
			gv: make([]float64, d.maxCells*k), gp: make([]float64, d.maxCells*k),
			qsave: make([]float64, d.maxCells*k), musave: make([]float64, k),
			muG: make([]float64, maxEff*k), qG: make([]float64, maxEff*k),
			leakW: make([]float64, 0, maxEff*k), leakX: make([]float64, 0, maxEff*k)}
	}
	return st
}

// freshQ sets the q of row r's positive cells proportional to μ⁰_j θ_{ja}
// on the sources with θ_{ja} > 0, where μ⁰_j = σ(logit p_j − Σ_{a=0} θ_{ja})
// is the exact posterior of source j given the row's negative findings
// alone (neg holds −Σ_{a=0} θ_{ja}). Choosing q ∝ θ_{ja}X_j is tight when
// the sources X are known; weighting by μ⁰ keeps mass off sources whose
// children are off, which would otherwise be switched on by the mass.
func (st *vemState) freshQ(r int, neg []float64, mu0 []float64) {
	d, p, k := st.d, st.p, st.p.k
	for j := range k {
		mu0[j] = sigmoid(st.logit[j] + neg[j])
	}
	for c := d.rowStart[r]; c < d.rowStart[r+1]; c++ {
		a := int(d.cellEff[c])
		q := st.q[c*k : c*k+k]
		th := p.th[a*k : a*k+k]
		sum := 0.0
		for j := range q {
			q[j] = mu0[j] * th[j]
			sum += q[j]
		}
		if sum > 0 {
			for j := range q {
				if th[j] > 0 {
					q[j] = max(q[j]/sum, vemQMin)
				}
			}
		}
	}
}

// prepare computes the per-E-step quantities that depend only on p.
func (st *vemState) prepare() {
	p, k := st.p, st.p.k
	clear(st.negBase)
	st.constBase = 0
	for a := range p.m {
		st.g0[a] = gval(p.th0[a])
		st.constBase -= p.th0[a]
		for j, t := range p.th[a*k : a*k+k] {
			st.negBase[j] -= t
		}
	}
	for j, pj := range p.prior {
		st.logit[j] = math.Log(pj) - math.Log1p(-pj)
		st.log1mp[j] = math.Log1p(-pj)
	}
}

// eStep runs the E-step on every row and returns the total bound; the
// posterior means are left in st.mu and their column sums in st.blockMu.
func (st *vemState) eStep() float64 {
	st.prepare()
	k, nb := st.p.k, len(st.blockBound)
	parallel.For(st.workers, nb, func(w, blk int) {
		s := st.scratch[w]
		r0, r1 := blk*vemBlock, min((blk+1)*vemBlock, st.d.rows)
		bsum := 0.0
		msum := st.blockMu[blk*k : blk*k+k]
		clear(msum)
		for r := r0; r < r1; r++ {
			bsum += st.rowEStep(s, r)
			for j, v := range st.mu[r*k : r*k+k] {
				msum[j] += v
			}
		}
		st.blockBound[blk] = bsum
	})
	st.fresh = false
	total := 0.0
	for _, b := range st.blockBound {
		total += b
	}
	return total
}

// rowEStep improves the q of row r's positive cells, sets its posteriors
// μ and returns its bound: from a fresh start in the first E-step of a
// start, else from the kept q and from a fresh start, keeping the better.
func (st *vemState) rowEStep(s *vemScratch, r int) float64 {
	k := st.p.k
	c0, c1 := st.d.rowStart[r], st.d.rowStart[r+1]
	cst := st.rowSetup(s, r)
	if st.fresh {
		st.freshQ(r, s.neg, s.grad)
		return st.rowOptimize(s, r, cst, st.inner)
	}
	bound := st.rowOptimize(s, r, cst, st.inner)
	if c1 == c0 {
		return bound // no q: the bound is exact
	}
	qs := s.qsave[:(c1-c0)*k]
	copy(qs, st.q[c0*k:c1*k])
	mu := st.mu[r*k : r*k+k]
	copy(s.musave, mu)
	st.freshQ(r, s.neg, s.grad)
	if fb := st.rowOptimize(s, r, cst, st.inner); fb > bound {
		return fb
	}
	copy(st.q[c0*k:c1*k], qs)
	copy(mu, s.musave)
	return bound
}

// rowSetup sets s.neg to −Σ_{a=0} θ_{ja} for row r and returns the part
// of its bound that does not depend on the sources,
// Σ_{a=0} (−θ_{0a}) + Σ_{a=1} g(θ_{0a}).
func (st *vemState) rowSetup(s *vemScratch, r int) float64 {
	d, p, k := st.d, st.p, st.p.k
	neg := s.neg
	copy(neg, st.negBase)
	cst := st.constBase
	for c := d.rowStart[r]; c < d.rowStart[r+1]; c++ {
		a := int(d.cellEff[c])
		for j, t := range p.th[a*k : a*k+k] {
			neg[j] += t
		}
		cst += p.th0[a] + st.g0[a]
	}
	for _, a32 := range d.missEff[d.missStart[r]:d.missStart[r+1]] {
		a := int(a32)
		for j, t := range p.th[a*k : a*k+k] {
			neg[j] += t
		}
		cst += p.th0[a]
	}
	return cst
}

// rowOptimize runs up to inner q/μ alternations on row r from its
// current q (stopping early when the row's bound gains less than 1e-9 of
// itself) and returns its bound; cst comes from rowSetup.
func (st *vemState) rowOptimize(s *vemScratch, r int, cst float64, inner int) float64 {
	d, p, k := st.d, st.p, st.p.k
	c0, c1 := d.rowStart[r], d.rowStart[r+1]
	n := c1 - c0
	gv, gp := s.gv[:n*k], s.gp[:n*k]
	for i := range n {
		c := c0 + i
		a := int(d.cellEff[c])
		th, th0 := p.th[a*k:a*k+k], p.th0[a]
		q := st.q[c*k : c*k+k]
		for j := range k {
			if q[j] > 0 {
				gv[i*k+j], gp[i*k+j] = gfun(th0 + th[j]/q[j])
			}
		}
	}
	mu := st.mu[r*k : r*k+k]
	bound := st.rowPosterior(s, r, cst, gv, mu)
	for range inner {
		if n == 0 {
			break
		}
		changed := false
		for i := range n {
			if st.egStep(s, c0+i, mu, gv[i*k:i*k+k], gp[i*k:i*k+k]) {
				changed = true
			}
		}
		if !changed {
			break
		}
		nb := st.rowPosterior(s, r, cst, gv, mu)
		done := nb-bound <= 1e-9*math.Abs(nb)
		bound = nb
		if done {
			break
		}
	}
	return bound
}

// rowPosterior sets μ from the current q of row r (gv holding g at the
// cells' arguments) and returns the row's bound; cst is the part of the
// bound that does not depend on the sources.
func (st *vemState) rowPosterior(s *vemScratch, r int, cst float64, gv, mu []float64) float64 {
	d, k := st.d, st.p.k
	c0, c1 := d.rowStart[r], d.rowStart[r+1]
	sj := s.acc
	copy(sj, s.neg)
	for c := c0; c < c1; c++ {
		g0 := st.g0[d.cellEff[c]]
		q := st.q[c*k : c*k+k]
		g := gv[(c-c0)*k : (c-c0)*k+k]
		for j := range k {
			if q[j] > 0 {
				sj[j] += q[j] * (g[j] - g0)
			}
		}
	}
	b := cst
	for j := range k {
		z := st.logit[j] + sj[j]
		mu[j] = sigmoid(z)
		b += st.log1mp[j] + softplus(z)
	}
	return b
}

// egStep takes one exponentiated-gradient step on the q of positive cell
// c given the posteriors mu, with gv and gp holding g and g′ at the
// cell's current arguments, and reports whether it was accepted (it
// increased F).
func (st *vemState) egStep(s *vemScratch, c int, mu, gv, gp []float64) bool {
	p, k := st.p, st.p.k
	a := int(st.d.cellEff[c])
	th, th0, g0 := p.th[a*k:a*k+k], p.th0[a], st.g0[a]
	q := st.q[c*k : c*k+k]
	grad := s.grad
	f, lip, gmax := 0.0, 0.0, math.Inf(-1)
	for j := range k {
		if q[j] <= 0 {
			continue
		}
		f += q[j] * mu[j] * (gv[j] - g0)
		t := th[j] / q[j]
		grad[j] = mu[j] * (gv[j] - t*gp[j] - g0)
		lip = max(lip, mu[j])
		gmax = max(gmax, grad[j])
	}
	if lip <= 0 {
		return false
	}
	// Long steps first, then the one that cannot decrease F.
	for _, eta := range [3]float64{min(8/lip, vemEtaMx), min(2/lip, vemEtaMx), min(1/lip, vemEtaMx)} {
		if st.egTry(s, q, mu, grad, gmax, eta, th, th0, g0, f) {
			for j := range k {
				if q[j] > 0 {
					q[j], gv[j], gp[j] = s.nq[j], s.ngv[j], s.ngp[j]
				}
			}
			return true
		}
	}
	return false
}

// egTry computes the exponentiated-gradient step of size eta from q into
// s.nq (with g and g′ at its arguments in s.ngv, s.ngp) and reports
// whether it increases F above f.
func (st *vemState) egTry(s *vemScratch, q, mu, grad []float64, gmax, eta float64, th []float64, th0, g0, f float64) bool {
	nq := s.nq
	sum := 0.0
	for j := range q {
		nq[j] = 0
		// A tiny q falling by e^{-40} or more goes to the floor: skip the
		// exponential (any q gives a valid bound; the step is checked).
		if e := eta * (grad[j] - gmax); q[j] > 1e-10 || (q[j] > 0 && e > -40) {
			nq[j] = q[j] * math.Exp(e)
			sum += nq[j]
		}
	}
	sum2 := 0.0
	for j := range q {
		if q[j] > 0 {
			nq[j] = max(nq[j]/sum, vemQMin)
			sum2 += nq[j]
		}
	}
	nf := 0.0
	for j := range q {
		if q[j] > 0 {
			nq[j] /= sum2
			s.ngv[j], s.ngp[j] = gfun(th0 + th[j]/nq[j])
			nf += nq[j] * mu[j] * (s.ngv[j] - g0)
		}
	}
	return nf > f
}

// mStep updates the priors from the block sums of μ and, effect by
// effect, the θ of every edge and the leak.
func (st *vemState) mStep(thMin, thMax float64) {
	p, k := st.p, st.p.k
	for j := range k {
		sum := 0.0
		for b := range st.blockBound {
			sum += st.blockMu[b*k+j]
		}
		p.prior[j] = min(max(sum/float64(st.d.rows), MinProb), 1-MinProb)
	}
	parallel.For(st.workers, p.m, func(w, a int) { st.mEffect(st.scratch[w], a, thMin, thMax) })
}

// mEffect maximises J over the θ of effect a's edges, then its leak.
func (st *vemState) mEffect(s *vemScratch, a int, thMin, thMax float64) {
	n := st.mGather(s, a)
	st.mEdges(s, a, n, thMin, thMax)
	if !st.fixLeak {
		st.mLeak(s, a, n, thMin, thMax)
	}
}

// mGather sets s.acc[j] to A_j, the posterior mass of source j over the
// rows where effect a is 0, and gathers μ and q over a's n positive rows
// into s.muG and s.qG (source-major: entry j·n+i for the i-th row). It
// returns n.
func (st *vemState) mGather(s *vemScratch, a int) int {
	d, k := st.d, st.p.k
	cells := d.effCells[a]
	n := len(cells)
	A := s.acc
	clear(A)
	for wi, word := range d.zeros[a] {
		for word != 0 {
			r := wi<<6 | bits.TrailingZeros64(word)
			word &= word - 1
			for j, v := range st.mu[r*k : r*k+k] {
				A[j] += v
			}
		}
	}
	muG, qG := s.muG[:n*k], s.qG[:n*k]
	for i, c := range cells {
		r := int(d.cellRow[c])
		for j := range k {
			muG[j*n+i] = st.mu[r*k+j]
			qG[j*n+i] = st.q[int(c)*k+j]
		}
	}
	return n
}

// mEdges maximises J over the θ of each possible edge into effect a, the
// others and the leak held fixed, from the sums of mGather.
func (st *vemState) mEdges(s *vemScratch, a, n int, thMin, thMax float64) {
	p, k := st.p, st.p.k
	muG, qG, A := s.muG[:n*k], s.qG[:n*k], s.acc
	th := p.th[a*k : a*k+k]
	th0 := p.th0[a]
	for j := range k {
		if th[j] <= 0 {
			continue // not a possible parent
		}
		mj, qj, Aj := muG[j*n:(j+1)*n], qG[j*n:(j+1)*n], A[j]
		deriv := func(x float64) (float64, float64) {
			d1, d2 := -Aj, 0.0
			for i, m := range mj {
				if m > 0 && qj[i] > 0 {
					g1 := gprime(th0 + x/qj[i])
					d1 += m * g1
					d2 -= m / qj[i] * g1 * (1 + g1)
				}
			}
			return d1, d2
		}
		val := func(x float64) float64 {
			v := -Aj * x
			for i, m := range mj {
				if m > 0 && qj[i] > 0 {
					v += m * qj[i] * gval(th0+x/qj[i])
				}
			}
			return v
		}
		th[j] = maxConcave(th[j], thMin, thMax, deriv, val)
	}
}

// mLeak maximises J over the leak θ_0 of effect a, its edges held fixed,
// from the sums of mGather.
func (st *vemState) mLeak(s *vemScratch, a, n int, thMin, thMax float64) {
	d, p, k := st.d, st.p, st.p.k
	muG, qG := s.muG[:n*k], s.qG[:n*k]
	th := p.th[a*k : a*k+k]
	// W: the mass Σ_j q_j(1−μ_j) of the leak-only term over a's positive rows.
	W := 0.0
	for i := range n {
		w := 1.0
		for j := range k {
			w -= qG[j*n+i] * muG[j*n+i]
		}
		W += max(w, 0)
	}
	// The terms w·g(θ_0 + θ_j/q_j) of the edges: weights μq > 0 and
	// offsets θ_j/q_j, by source and then row.
	lw, lx := s.leakW[:0], s.leakX[:0]
	for j := range k {
		if th[j] <= 0 {
			continue
		}
		mj, qj := muG[j*n:(j+1)*n], qG[j*n:(j+1)*n]
		for i, m := range mj {
			if w := m * qj[i]; w > 0 {
				lw = append(lw, w)
				lx = append(lx, th[j]/qj[i])
			}
		}
	}
	s.leakW, s.leakX = lw, lx
	n0 := float64(d.neg[a])
	deriv := func(x float64) (float64, float64) {
		g1 := gprime(x)
		d1, d2 := -n0+W*g1, -W*g1*(1+g1)
		for t, w := range lw {
			g1 := gprime(x + lx[t])
			d1 += w * g1
			d2 -= w * g1 * (1 + g1)
		}
		return d1, d2
	}
	val := func(x float64) float64 {
		v := -n0*x + W*gval(x)
		for t, w := range lw {
			v += w * gval(x+lx[t])
		}
		return v
	}
	p.th0[a] = maxConcave(p.th0[a], thMin, thMax, deriv, val)
}

// maxConcave returns a maximiser over [lo, hi] (0 < lo < hi) of a concave
// function h given by its value and its first two derivatives, starting
// from x0: Newton's method on h′ in log x, inside a bracket of the root
// of h′ that every evaluation shrinks (a step outside the bracket tries
// the untried end of the interval, then bisects) until the step in log x
// is below 1e-11. If that does not happen within 100 steps, the result is
// compared with x0 and x0 is kept if it is better.
func maxConcave(x0, lo, hi float64, deriv func(float64) (float64, float64), h func(float64) float64) float64 {
	a, b := math.Log(lo), math.Log(hi)
	aKnown, bKnown := false, false // h′ > 0 at e^a, h′ < 0 at e^b, when known
	u := min(max(math.Log(x0), a), b)
	x := math.Exp(u)
	converged := false
	for range 100 {
		d1, d2 := deriv(x)
		if d1 == 0 {
			converged = true
			break
		}
		if math.IsNaN(d1) {
			break
		}
		if d1 > 0 {
			if u >= b {
				x, converged = hi, true
				break
			}
			a, aKnown = u, true
		} else {
			if u <= a {
				x, converged = lo, true
				break
			}
			b, bKnown = u, true
		}
		un := math.NaN()
		if d2 < 0 {
			un = u - d1/(x*d2)
		}
		switch {
		case un > a && un < b:
		case !(un > a) && !aKnown:
			un = a
		case !(un < b) && !bKnown:
			un = b
		default:
			un = (a + b) / 2
		}
		if math.Abs(un-u) <= 1e-11 || b-a <= 1e-11 {
			x, converged = math.Exp(un), true
			break
		}
		u = un
		x = math.Exp(u)
		if u == a {
			x = lo
		} else if u == b {
			x = hi
		}
	}
	x = min(max(x, lo), hi)
	if x == x0 || converged {
		return x
	}
	if h(x) < h(x0) {
		return x0
	}
	return x
}

// thetaOf returns −log(1 − v), the θ form of a leak or of 1 − failure.
func thetaOf(v float64) float64 { return -math.Log1p(-v) }

// randomStart draws a start: priors uniform on [0.1, 0.4], failures
// uniform on [0.5, 0.99] for every source–effect pair, leaks at leak.
func (st *vemState) randomStart(rng *rand.Rand, leak float64) {
	p := st.p
	for j := range p.prior {
		p.prior[j] = 0.1 + 0.3*rng.Float64()
	}
	for a := range p.m {
		for j := range p.k {
			p.th[a*p.k+j] = -math.Log(0.5 + 0.49*rng.Float64())
		}
		p.th0[a] = thetaOf(leak)
	}
	st.fresh = true
}

// Fit fits a noisy-or network with opt.Sources sources to b by
// variational EM (see the comment at the top of vem.go for the bound and
// the updates): every start draws random priors and failures from its
// own generator, runs EM until the total bound changes by at most
// Tol·|bound| or MaxIter E-steps, and the start with the highest bound is
// returned. Missing cells are marginalised.
func Fit(b *noisyor.Binary, opt Options) (*Result, error) {
	if b == nil {
		return nil, errors.New("noisyor: nil data")
	}
	switch {
	case b.NumEffects() == 0:
		return nil, errors.New("noisyor: the data have no effects (columns)")
	case b.Rows == 0:
		return nil, errors.New("noisyor: the data have no rows")
	case len(b.Ones) != b.NumEffects() || len(b.Zeros) != b.NumEffects():
		return nil, fmt.Errorf("noisyor: %d names but %d/%d columns of data", b.NumEffects(), len(b.Ones), len(b.Zeros))
	case opt.Sources < 1:
		return nil, fmt.Errorf("noisyor: %d sources, want at least 1", opt.Sources)
	case opt.Restarts < 0:
		return nil, fmt.Errorf("noisyor: %d restarts, want 0 (default %d) or more", opt.Restarts, DefaultRestarts)
	case opt.MaxIter < 0:
		return nil, fmt.Errorf("noisyor: MaxIter %d, want 0 (default %d) or more", opt.MaxIter, DefaultMaxIter)
	case opt.Inner < 0:
		return nil, fmt.Errorf("noisyor: Inner %d, want 0 (default %d) or more", opt.Inner, DefaultInner)
	case !(opt.Tol >= 0) || math.IsInf(opt.Tol, 0):
		return nil, fmt.Errorf("noisyor: tolerance %v, want a finite value ≥ 0 (0: default %g)", opt.Tol, DefaultTol)
	case opt.Workers < 0:
		return nil, fmt.Errorf("noisyor: %d workers, want 0 (GOMAXPROCS) or more", opt.Workers)
	case opt.Leak != 0 && !(opt.Leak >= MinProb && opt.Leak <= 1-MinProb):
		return nil, fmt.Errorf("noisyor: leak %v, want [%g, 1 − %g] (0: default %g)", opt.Leak, MinProb, MinProb, DefaultLeak)
	case !(opt.MaxFailure >= 0 && opt.MaxFailure <= 1):
		return nil, fmt.Errorf("noisyor: MaxFailure %v, want [0, 1] (0: default %g)", opt.MaxFailure, DefaultMaxFailure)
	}
	if opt.Restarts == 0 {
		opt.Restarts = DefaultRestarts
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = DefaultMaxIter
	}
	if opt.Tol == 0 {
		opt.Tol = DefaultTol
	}
	if opt.Inner == 0 {
		opt.Inner = DefaultInner
	}
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.Leak == 0 {
		opt.Leak = DefaultLeak
	}
	if opt.MaxFailure == 0 {
		opt.MaxFailure = DefaultMaxFailure
	}
	master := seed.Rand(opt.Src, seed.Model)
	seeds := make([][2]uint64, opt.Restarts)
	for i := range seeds {
		seeds[i] = [2]uint64{master.Uint64(), master.Uint64()}
	}
	d, err := newVEMData(b)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	thMin, thMax := thetaOf(MinProb), thetaOf(1-MinProb)
	st := newVEMState(d, opt.Sources, &opt)
	res := &Result{Starts: make([]Start, opt.Restarts), Best: -1}
	var best *vemParams
	for i := range opt.Restarts {
		t0 := time.Now()
		st.randomStart(rand.New(rand.NewPCG(seeds[i][0], seeds[i][1])), opt.Leak)
		info := st.run(opt.MaxIter, opt.Tol, thMin, thMax, func(it int, bound float64) {
			if opt.Progress != nil {
				opt.Progress(i, it, bound)
			}
		})
		info.Seconds = time.Since(t0).Seconds()
		res.Starts[i] = info
		if res.Best < 0 || info.Bound > res.Starts[res.Best].Bound {
			res.Best = i
			best = &vemParams{k: st.p.k, m: st.p.m, prior: slices.Clone(st.p.prior), th: slices.Clone(st.p.th), th0: slices.Clone(st.p.th0)}
		}
	}
	bi := res.Starts[res.Best]
	res.Bound, res.Iterations, res.Converged = bi.Bound, bi.Iterations, bi.Converged
	res.Network, res.Failures, res.ClampedFailures = best.network(b.Names, opt.MaxFailure)
	res.Duration = time.Since(start)
	return res, nil
}

// run iterates E- and M-steps from the current parameters and q until
// the relative change of the bound is at most tol or maxIter E-steps;
// the parameters are left at the last E-step's.
func (st *vemState) run(maxIter int, tol, thMin, thMax float64, progress func(int, float64)) Start {
	var info Start
	prev := math.Inf(-1)
	for it := 1; it <= maxIter; it++ {
		bound := st.eStep()
		info.Trace = append(info.Trace, bound)
		info.Bound, info.Iterations = bound, it
		progress(it, bound)
		if it > 1 && bound-prev <= tol*math.Abs(bound) {
			info.Converged = true
			break
		}
		if it == maxIter {
			break
		}
		prev = bound
		st.mStep(thMin, thMax)
	}
	return info
}

// network converts the parameters into a Network: sources in decreasing
// order of prior (ties by index) named X1..XK, edges with failure at most
// maxFailure; it also returns every failure in that order and the number
// of failures at the lower clamp.
func (p *vemParams) network(names []string, maxFailure float64) (*noisyor.Network, [][]float64, int) {
	order := make([]int, p.k)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case p.prior[x] > p.prior[y]:
			return -1
		case p.prior[x] < p.prior[y]:
			return 1
		}
		return 0
	})
	n := &noisyor.Network{Effects: slices.Clone(names), Leak: make([]float64, p.m), Sources: make([]noisyor.Source, p.k)}
	for a := range p.m {
		n.Leak[a] = -math.Expm1(-p.th0[a])
	}
	fails := make([][]float64, p.k)
	clamped := 0
	for s, j := range order {
		src := noisyor.Source{Name: "X" + strconv.Itoa(s+1), Prior: p.prior[j]}
		fails[s] = make([]float64, p.m)
		for a := range p.m {
			f := math.Exp(-p.th[a*p.k+j])
			fails[s][a] = f
			if f <= MinProb*(1+1e-9) {
				clamped++
			}
			if f <= maxFailure && f < 1 {
				src.Children = append(src.Children, noisyor.Child{Effect: a, Failure: f})
			}
		}
		n.Sources[s] = src
	}
	return n, fails, clamped
}
