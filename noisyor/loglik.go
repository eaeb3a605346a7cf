package noisyor

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/internal/unionfind"
)

// Defaults of LikOptions.
const (
	// DefaultMaxExact is the default LikOptions.MaxExact: 2^20.
	DefaultMaxExact = 1 << 20
	// DefaultSamples is the default LikOptions.Samples.
	DefaultSamples = 10000
)

// quickscoreTol is the largest relative rounding-error bound with which a
// quickscore sum counts as exact; a sum with a larger bound (cancellation)
// is recomputed by enumeration or sampling.
const quickscoreTol = 1e-11

// defensiveMix is the weight of the mean-field part of the importance
// sampler's proposal; the rest is the prior given the negative findings,
// which bounds every importance weight by 1/(1 − defensiveMix).
const defensiveMix = 0.75

// LikOptions configures LogLikelihood and Posteriors. The zero value is
// usable.
type LikOptions struct {
	// MaxExact bounds the work of summing one component of a row exactly
	// (see LogLikelihood): 2^k source states for enumeration, 2^p·(k+1)
	// products of a subset and a source for quickscore. Components beyond
	// it are estimated by importance sampling. 0 means DefaultMaxExact.
	MaxExact int
	// Samples is the number of importance samples drawn for each
	// component that is estimated. 0 means DefaultSamples; otherwise at
	// least 2.
	Samples int
	// Src seeds the importance sampler; nil uses the fixed seed
	// rand.NewPCG(1, 0x6e6f6973), the CLI's default --seed. Two numbers
	// are drawn from it at the start; a row with an estimated component
	// draws from its own stream derived from them and the row's index, so
	// the result does not depend on Workers.
	Src rand.Source
	// Rows asks for the per-row log-likelihoods and standard errors
	// (Likelihood.Rows, Likelihood.RowStdErr).
	Rows bool
	// Posteriors asks for the posterior of every source in every row
	// (Likelihood.Posteriors).
	Posteriors bool
	// Workers is the number of goroutines working on rows; 0 means
	// runtime.GOMAXPROCS(0). The result does not depend on it.
	Workers int
}

// Likelihood is the log-likelihood of a dataset under a network.
type Likelihood struct {
	// LogLik is the sum of the rows' log-likelihoods (natural log): −Inf
	// when a row has probability 0.
	LogLik float64
	// FiniteLogLik is the sum over the rows with probability > 0.
	FiniteLogLik float64
	// StdErr is the standard error of LogLik due to the estimated rows:
	// the square root of the sum of their squared standard errors (0 when
	// every row is exact).
	StdErr float64
	// Exact counts the rows computed exactly (up to rounding), Approx those
	// with at least one component estimated by importance sampling.
	Exact, Approx int
	// Zero counts the rows with probability 0 (computed or estimated), for
	// instance a positive effect that has no parent and no leak.
	Zero int
	// FirstZero is the index (from 0) of the first row with probability 0,
	// or −1.
	FirstZero int
	// Rows holds each row's log-likelihood when LikOptions.Rows is set.
	Rows []float64
	// RowStdErr holds each row's standard error when LikOptions.Rows is
	// set: 0 for an exact row.
	RowStdErr []float64
	// components counts the components computed by each method (see
	// byEnumeration), for tests.
	components [3]int
	// Posteriors holds, when LikOptions.Posteriors is set,
	// Posteriors[r][s] = P(source s is on | row r), in the network's source
	// order; NaN for every source of a row with probability 0.
	Posteriors [][]float64
}

// LogLikelihood returns the log-likelihood of the rows of b under the
// network. Effects are matched to the columns of b by name (b's columns may
// be in any order); an effect that is not a column of b, or a column of b
// that is not an effect, is an error naming it. Missing cells are
// marginalised: they are neither 0 nor 1.
//
// What is exact. A row factorises: its negative findings (effects at 0)
// contribute ∏(1−ν_a) and turn every source's prior into its posterior
// given them, 1 − p + p·∏_{neg} f per source in closed form (the negative
// moment, eq. 1). A positive finding with one parent multiplies that
// parent's weights in closed form (ν + (1−ν)(1−f) when on, ν when off); one
// with no parent contributes its leak ν. The positive findings with two or
// more parents couple them: those sources split into connected components
// (two sources are connected when they share such a child), which are
// independent. Each component, with k sources and p positive findings,
// is summed exactly when min(2^k, 2^p·(k+1)) ≤ MaxExact:
//   - by enumeration of its 2^k source states (all terms positive; sums
//     of products kept with a separate binary exponent, so nothing
//     underflows), preferred unless 2^p·(k+1)·16 < 2^k;
//   - or by quickscore, inclusion–exclusion over the 2^p subsets S of its
//     positive findings, Σ_S (−1)^|S| ∏_{a∈S}(1−ν_a) ∏_X(1 − π_X + π_X
//     ∏_{a∈S} f_{X,a}) with π_X the posterior given the negatives. Its
//     terms alternate in sign and can cancel, so they are summed in
//     double-double arithmetic (about 106 bits) with a rounding-error
//     bound; if the bound exceeds 1e-11 of the sum (cancellation beyond
//     about 10^-19), the component is enumerated instead (if
//     2^k ≤ MaxExact) or estimated.
//
// Exact components are correct to a small multiple of the float64
// rounding unit times the number of factors (the factor of a positive
// finding is formed as ν + (1−ν)(1 − ∏f), without cancellation). A row
// in which a positive effect cannot be on (no parent and no leak, say) has
// probability 0: its log-likelihood is −Inf and it is counted in Zero.
//
// What is approximated. A component with min(2^k, 2^p·(k+1)) > MaxExact is
// estimated by importance sampling of its sources' states, Samples draws
// from a defensive mixture: with probability 0.75 independent Bernoullis
// q_X at a damped fixed point of logit q_X = logit π_X + Σ_a log((1 −
// f_{X,a} m_a)/(1 − m_a)), m_a = (1−ν_a)∏_{Y≠X}(1 − q_Y + q_Y f_{Y,a}) over
// X's positive children a, and otherwise the posteriors π given the
// negative findings alone, which bounds every importance weight by 4, so
// the variance is finite. The estimate of the component's probability is
// unbiased; its log has the delta-method standard error se(P̂)/P̂ (and a
// bias of about −se²/2). A row's standard error combines its components'
// in quadrature, and StdErr the rows'.
//
// Rows are independent and computed in parallel over Workers; sums are
// formed in row order, so the result is the same for any number of
// workers.
func (n *Network) LogLikelihood(b *Binary, opt LikOptions) (*Likelihood, error) {
	e, err := newLikEngine(n, b, &opt)
	if err != nil {
		return nil, err
	}
	return e.run(), nil
}

// likEngine holds what every row needs: the network's parents indexed by
// effect, the logs of the failures and leaks, and each source's
// all-negative baseline.
type likEngine struct {
	n          *Network
	b          *Binary
	opt        LikOptions
	col        []int      // col[a] is the column of b holding effect a
	parents    [][]Parent // parents of each effect
	parLogF    [][]float64
	logLeakOff []float64 // log(1 − ν_a)
	leakOff    []float64 // 1 − ν_a
	leakOffSum float64   // Σ_a log(1 − ν_a)
	logLeak    []float64 // log ν_a
	logSingle  []float64 // for an effect with one parent: log(ν + (1−ν)(1−f))
	childLog   []float64 // Σ log f over a source's children with f > 0
	childZero  []int     // number of a source's children with f = 0
	seed1      uint64
	seed2      uint64
}

func newLikEngine(n *Network, b *Binary, opt *LikOptions) (*likEngine, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errors.New("noisyor: nil data")
	}
	if opt.MaxExact < 0 {
		return nil, fmt.Errorf("noisyor: LikOptions.MaxExact %d is negative", opt.MaxExact)
	}
	if opt.MaxExact == 0 {
		opt.MaxExact = DefaultMaxExact
	}
	switch {
	case opt.Samples == 0:
		opt.Samples = DefaultSamples
	case opt.Samples < 2:
		return nil, fmt.Errorf("noisyor: LikOptions.Samples %d, want at least 2", opt.Samples)
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	col, err := columnsOf(n, b)
	if err != nil {
		return nil, err
	}
	m, ns := len(n.Effects), len(n.Sources)
	e := &likEngine{n: n, b: b, opt: *opt, col: col, parents: n.Parents(),
		parLogF: make([][]float64, m), logLeak: make([]float64, m), logSingle: make([]float64, m), logLeakOff: make([]float64, m), leakOff: make([]float64, m),
		childLog: make([]float64, ns), childZero: make([]int, ns)}
	for a := range m {
		v := n.LeakOf(a)
		e.leakOff[a] = 1 - v
		e.logLeakOff[a] = math.Log1p(-v)
		e.leakOffSum += e.logLeakOff[a]
		e.logLeak[a] = math.Log(v)
		if ps := e.parents[a]; len(ps) == 1 {
			e.logSingle[a] = math.Log(v + (1-v)*(1-ps[0].Failure))
		}
		e.parLogF[a] = make([]float64, len(e.parents[a]))
		for i, p := range e.parents[a] {
			e.parLogF[a][i] = math.Log(p.Failure)
		}
	}
	for s, src := range n.Sources {
		for _, c := range src.Children {
			if c.Failure == 0 {
				e.childZero[s]++
			} else {
				e.childLog[s] += math.Log(c.Failure)
			}
		}
	}
	e.opt.Src = seed.Or(opt.Src, seed.NoisyOrLik)
	return e, nil
}

// rowResult is one row's log-likelihood.
type rowResult struct {
	ll, se  float64
	approx  bool
	methods [3]int32 // components by enumeration, quickscore, sampling
}

func (e *likEngine) run() *Likelihood {
	rows := e.b.Rows
	ns := len(e.n.Sources)
	res := make([]rowResult, rows)
	var post [][]float64
	if e.opt.Posteriors {
		flat := make([]float64, rows*ns)
		post = make([][]float64, rows)
		for r := range post {
			post[r] = flat[r*ns : (r+1)*ns : (r+1)*ns]
		}
	}
	// The sampler's seeds are drawn before the rows are split among the
	// workers, so every row's stream is fixed.
	rng := rand.New(e.opt.Src)
	e.seed1, e.seed2 = rng.Uint64(), rng.Uint64()

	blocks := (rows + 63) / 64
	parallel.ForState(e.opt.Workers, blocks, func() *likWorker { return newLikWorker(e) }, func(w *likWorker, blk int) {
		w.block(blk, res, post)
	})

	l := &Likelihood{FirstZero: -1, Posteriors: post}
	var se2 float64
	for r, x := range res {
		for i, c := range x.methods {
			l.components[i] += int(c)
		}
		if x.approx {
			l.Approx++
			se2 += x.se * x.se
		} else {
			l.Exact++
		}
		if math.IsInf(x.ll, -1) {
			l.Zero++
			if l.FirstZero < 0 {
				l.FirstZero = r
			}
			continue
		}
		l.FiniteLogLik += x.ll
	}
	l.LogLik = l.FiniteLogLik
	if l.Zero > 0 {
		l.LogLik = math.Inf(-1)
	}
	l.StdErr = math.Sqrt(se2)
	if e.opt.Rows {
		l.Rows = make([]float64, rows)
		l.RowStdErr = make([]float64, rows)
		for r, x := range res {
			l.Rows[r], l.RowStdErr[r] = x.ll, x.se
		}
	}
	return l
}

// likWorker is one goroutine's scratch space.
type likWorker struct {
	e       *likEngine
	pos     [64][]int32             // positive effects of each row of a block
	miss    [64][]int32             // missing effects of each row of a block
	logG    []float64               // per source: Σ log f over the row's negatives
	zeroF   []int                   // per source: negatives with f = 0
	pi1     []float64               // per source: P(on | negatives)
	pi0     []float64               // per source: P(off | negatives)
	uf      unionfind.Forest[int32] // over sources
	inR     []bool
	tilt    []bool    // per source: has a single-parent positive in the row
	tilted  []int32   // those sources
	lon     []float64 // per tilted source: Σ log(ν + (1−ν)(1−f))
	loff    []float64 // per tilted source: Σ log ν
	local   []int32   // source → index within its component
	compOf  []int32   // root source → component number
	srcs    []int32   // sources of R, ascending
	comps   []likComponent
	compPos [][]int32
	pcg     *rand.PCG
	rng     *rand.Rand
	rowIdx  int
	seeded  bool
}

func newLikWorker(e *likEngine) *likWorker {
	ns := len(e.n.Sources)
	w := &likWorker{e: e, logG: make([]float64, ns), zeroF: make([]int, ns),
		pi1: make([]float64, ns), pi0: make([]float64, ns), uf: make(unionfind.Forest[int32], ns),
		inR: make([]bool, ns), tilt: make([]bool, ns), lon: make([]float64, ns), loff: make([]float64, ns), local: make([]int32, ns), compOf: make([]int32, ns)}
	w.pcg = rand.NewPCG(0, 0)
	w.rng = rand.New(w.pcg)
	return w
}

// block computes the rows of block blk (rows 64·blk to 64·blk+63).
func (w *likWorker) block(blk int, res []rowResult, post [][]float64) {
	e := w.e
	r0 := blk * 64
	nr := min(64, e.b.Rows-r0)
	for i := range nr {
		w.pos[i], w.miss[i] = w.pos[i][:0], w.miss[i][:0]
	}
	valid := ^uint64(0)
	if nr < 64 {
		valid = 1<<nr - 1
	}
	for a, c := range e.col {
		ones, zeros := e.b.Ones[c][blk]&valid, e.b.Zeros[c][blk]&valid
		for x := ones; x != 0; x &= x - 1 {
			i := bits.TrailingZeros64(x)
			w.pos[i] = append(w.pos[i], int32(a))
		}
		for x := valid &^ (ones | zeros); x != 0; x &= x - 1 {
			i := bits.TrailingZeros64(x)
			w.miss[i] = append(w.miss[i], int32(a))
		}
	}
	for i := range nr {
		var p []float64
		if post != nil {
			p = post[r0+i]
		}
		res[r0+i] = w.row(r0+i, w.pos[i], w.miss[i], p)
	}
}

// row computes one row's log-likelihood (and posteriors into post when
// it is not nil): the sources are summed out independently given the
// negative findings and the positives with at most one parent, then the
// components that the other positives join are summed one by one.
func (w *likWorker) row(r int, pos, miss []int32, post []float64) rowResult {
	w.rowIdx, w.seeded = r, false
	ll := w.unobserve(pos, miss)
	ll = w.positives(pos, ll)
	ll = w.sourcePosteriors(ll, post)
	for _, s := range w.srcs {
		w.inR[s] = false
	}
	if math.IsInf(ll, -1) || math.IsNaN(ll) {
		return w.zeroRow(post, [3]int32{})
	}
	if len(w.srcs) == 0 {
		return rowResult{ll: ll}
	}
	return w.sumComponents(w.components(pos), ll, post)
}

// unobserve starts the row from every effect negative (the engine's
// sums) and takes off the positive and missing effects pos and miss:
// their leaks' contribution to the log-likelihood, which it returns, and
// their failures' to w.logG and w.zeroF.
func (w *likWorker) unobserve(pos, miss []int32) float64 {
	e := w.e
	copy(w.logG, e.childLog)
	copy(w.zeroF, e.childZero)
	ll := e.leakOffSum
	for _, list := range [2][]int32{pos, miss} {
		for _, a := range list {
			ll -= e.logLeakOff[a]
			lf := e.parLogF[a]
			for i, p := range e.parents[a] {
				if p.Failure == 0 {
					w.zeroF[p.Source]--
				} else {
					w.logG[p.Source] -= lf[i]
				}
			}
		}
	}
	return ll
}

// positives adds the positive findings pos to ll, which it returns: one
// without parents contributes its leak; one with a single parent tilts
// that parent's weights (ν + (1−ν)(1−f) when on, ν when off); the others
// join their parents into components (w.srcs, w.uf).
func (w *likWorker) positives(pos []int32, ll float64) float64 {
	e := w.e
	w.srcs, w.tilted = w.srcs[:0], w.tilted[:0]
	for _, a := range pos {
		ps := e.parents[a]
		switch len(ps) {
		case 0:
			ll += e.logLeak[a]
			continue
		case 1:
			s := ps[0].Source
			if !w.tilt[s] {
				w.tilt[s] = true
				w.tilted = append(w.tilted, int32(s))
				w.lon[s], w.loff[s] = 0, 0
			}
			w.lon[s] += e.logSingle[a]
			w.loff[s] += e.logLeak[a]
			continue
		}
		for _, p := range ps {
			s := p.Source
			if !w.inR[s] {
				w.inR[s] = true
				w.uf[s] = int32(s)
				w.srcs = append(w.srcs, int32(s))
			}
		}
		for _, p := range ps[1:] {
			w.uf.Union(int32(ps[0].Source), int32(p.Source))
		}
	}
	return ll
}

// sourcePosteriors sets each source's posterior given the negative
// findings and its single-parent positives (w.pi1, w.pi0, and post when
// it is not nil) and adds the log of its normaliser to ll, which it
// returns.
func (w *likWorker) sourcePosteriors(ll float64, post []float64) float64 {
	e := w.e
	for s := range len(e.n.Sources) {
		prior := e.n.Sources[s].Prior
		lg := w.logG[s]
		if w.zeroF[s] > 0 {
			lg = math.Inf(-1)
		}
		if lg > 0 { // rounding of the subtraction: every negative is gone
			lg = 0
		}
		var lz float64
		switch {
		case w.tilt[s]:
			w.tilt[s] = false
			lon := math.Log(prior) + lg + w.lon[s]
			loff := math.Log1p(-prior) + w.loff[s]
			lz = logAddExp(lon, loff)
			if math.IsInf(lz, -1) {
				w.pi1[s], w.pi0[s] = math.NaN(), math.NaN()
			} else {
				w.pi1[s], w.pi0[s] = math.Exp(lon-lz), math.Exp(loff-lz)
			}
		case prior == 1:
			lz = lg
			w.pi1[s], w.pi0[s] = 1, 0
		default:
			on := prior * math.Exp(lg)
			off := 1 - prior
			z := on + off
			lz = math.Log(z)
			w.pi1[s], w.pi0[s] = on/z, off/z
		}
		ll += lz
		if post != nil {
			post[s] = w.pi1[s]
		}
	}
	return ll
}

// components sorts w.srcs and groups them, with the positives of pos that
// have several parents, into components (w.comps, w.compPos) in order of
// their smallest source; it returns their number.
func (w *likWorker) components(pos []int32) int {
	e := w.e
	slices.Sort(w.srcs)
	nc := 0
	for _, s := range w.srcs {
		root := w.uf.Find(s)
		if root == s {
			w.compOf[s] = int32(nc)
			nc++
		}
	}
	for len(w.comps) < nc {
		w.comps = append(w.comps, likComponent{})
		w.compPos = append(w.compPos, nil)
	}
	for c := range nc {
		w.comps[c].srcs = w.comps[c].srcs[:0]
		w.compPos[c] = w.compPos[c][:0]
	}
	for _, s := range w.srcs {
		c := w.compOf[w.uf.Find(s)]
		w.local[s] = int32(len(w.comps[c].srcs))
		w.comps[c].srcs = append(w.comps[c].srcs, s)
	}
	for _, a := range pos {
		if ps := e.parents[a]; len(ps) > 1 {
			c := w.compOf[w.uf.Find(int32(ps[0].Source))]
			w.compPos[c] = append(w.compPos[c], a)
		}
	}
	return nc
}

// sumComponents adds to ll the log-factor of each of the nc components
// (exact or sampled, as comp.eval chooses) and sets their sources'
// posteriors into post when it is not nil.
func (w *likWorker) sumComponents(nc int, ll float64, post []float64) rowResult {
	res := rowResult{}
	var relVar float64
	for c := range nc {
		comp := &w.comps[c]
		comp.build(w, w.compPos[c], post != nil)
		lv, se, method := comp.eval(w)
		res.methods[method]++
		if math.IsInf(lv, -1) || math.IsNaN(lv) {
			return w.zeroRow(post, res.methods)
		}
		ll += lv
		if method == bySampling {
			res.approx = true
			relVar += se * se
		}
		if post != nil {
			for i, s := range comp.srcs {
				post[s] = comp.postv[i]
			}
		}
	}
	res.ll, res.se = ll, math.Sqrt(relVar)
	return res
}

// zeroRow is the result of a row with probability 0.
func (w *likWorker) zeroRow(post []float64, methods [3]int32) rowResult {
	for i := range post {
		post[i] = math.NaN()
	}
	return rowResult{ll: math.Inf(-1), approx: methods[bySampling] > 0, methods: methods}
}

// rand returns the row's random stream, seeded on first use from the
// engine's seeds and the row index.
func (w *likWorker) rand() *rand.Rand {
	if !w.seeded {
		w.pcg.Seed(w.e.seed1, w.e.seed2^(uint64(w.rowIdx)+1)*0x9e3779b97f4a7c15)
		w.seeded = true
	}
	return w.rng
}
