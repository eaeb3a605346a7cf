package gaussian

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/internal/squarem"
	"github.com/latentree/latentree/tree"
)

// The two bounds on a correlation |ρ|: an EM start from edge lengths stays
// further from 1 (an edge of length ≈ 0 must not start EM at a degenerate
// model), while the M-step only keeps every conditional variance 1 − ρ²
// positive.
const (
	startRhoMax = 0.999
	rhoMax      = 0.999999
)

// gbinding maps a continuous dataset onto a Gaussian model's observed
// nodes by name.
type gbinding struct {
	obs  []int // model observed nodes in column order of cols
	cols [][]float64
	rows int
	w    []float64 // row weights (data.Dataset.RowWeights; nil: 1 each)
	n    float64   // Σ w: the sample size of the sums over rows
}

// wt returns the weight of row r.
func (b *gbinding) wt(r int) float64 {
	if b.w == nil {
		return 1
	}
	return b.w[r]
}

// weightOf returns the total weight of the rows.
func (b *gbinding) weightOf(rows []int) float64 {
	if b.w == nil {
		return float64(len(rows))
	}
	s := 0.0
	for _, r := range rows {
		s += b.w[r]
	}
	return s
}

func (g *Model) bind(d *data.Dataset) (*gbinding, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	t := g.Tree
	b := &gbinding{rows: d.NumRows()}
	if err := model.CheckColumns(t, d.Names()); err != nil {
		return nil, err
	}
	for _, v := range t.Observed() {
		j, _ := d.Index(t.Name(v))
		if d.Var(j).Kind != data.Continuous {
			return nil, fmt.Errorf("model: column %q is discrete but the model's variable is continuous", t.Name(v))
		}
		b.obs = append(b.obs, v)
		b.cols = append(b.cols, d.Continuous(j))
	}
	b.w, b.n = d.RowWeights(), float64(b.rows)
	if b.w != nil {
		b.n = 0
		for _, x := range b.w {
			b.n += x
		}
	}
	return b, nil
}

// pattern is a set of rows with the same observed cells (column indices
// idx).
type pattern struct {
	idx, rows []int
}

// patterns groups the rows by their pattern of observed (non-NaN) cells,
// so that each pattern's marginal covariance is factorised once.
func (b *gbinding) patterns() []pattern {
	p := len(b.cols)
	index := map[string]int{}
	var out []pattern
	key := make([]byte, p)
	for r := 0; r < b.rows; r++ {
		for j := 0; j < p; j++ {
			key[j] = 1
			if math.IsNaN(b.cols[j][r]) {
				key[j] = 0
			}
		}
		k, ok := index[string(key)]
		if !ok {
			k = len(out)
			index[string(key)] = k
			var idx []int
			for j := 0; j < p; j++ {
				if key[j] == 1 {
					idx = append(idx, j)
				}
			}
			out = append(out, pattern{idx: idx})
		}
		out[k].rows = append(out[k].rows, r)
	}
	return out
}

// covariance returns the model covariance between the nodes a and b
// (row-major len(a)×len(b)).
func (g *Model) covariance(a, b []int) []float64 {
	out := make([]float64, len(a)*len(b))
	r := g.Rooted()
	c := make([]float64, g.Tree.MaxID())
	onPath := make([]bool, g.Tree.MaxID())
	// One pass over the tree per node of the shorter list.
	if len(b) < len(a) {
		for j, v := range b {
			g.correlationsInto(r, v, c, onPath)
			for i, u := range a {
				out[i*len(b)+j] = c[u] * math.Sqrt(g.Var[u]*g.Var[v])
			}
		}
		return out
	}
	for i, u := range a {
		g.correlationsInto(r, u, c, onPath)
		for j, v := range b {
			out[i*len(b)+j] = c[v] * math.Sqrt(g.Var[u]*g.Var[v])
		}
	}
	return out
}

// correlationsInto sets out[v] to the correlation of u with every node v
// of the tree rooted as r, without allocating (covariance runs it at every
// E-step): up the path from u to the root, then down from the path.
// onPath is scratch space, all false on entry and on return.
func (g *Model) correlationsInto(r *tree.Rooted, u int, out []float64, onPath []bool) {
	out[u], onPath[u] = 1, true
	for w := u; r.Parent[w] >= 0; w = r.Parent[w] {
		out[r.Parent[w]], onPath[r.Parent[w]] = out[w]*g.Rho[w], true
	}
	for _, v := range r.Order {
		if !onPath[v] {
			out[v] = out[r.Parent[v]] * g.Rho[v]
		}
	}
	for w := u; w >= 0; w = r.Parent[w] {
		onPath[w] = false
	}
}

// subCovariance returns the rows and columns idx of full, a p×p covariance
// stored by rows.
func subCovariance(full []float64, p int, idx []int) *mat.SymDense {
	sub := mat.NewSymDense(len(idx), nil)
	for a, i := range idx {
		for c, j := range idx {
			sub.SetSym(a, c, full[i*p+j])
		}
	}
	return sub
}

// NumParams returns κ: one correlation per edge and a mean and a variance
// per observed variable (hidden variables have mean 0 and variance 1, which
// fixes their scale).
func (g *Model) NumParams() int { return NumParamsOn(g.Tree) }

// NumParamsOn returns the NumParams of a model on t.
func NumParamsOn(t *tree.Tree) int { return t.NumEdges() + 2*t.NumObserved() }

// LogLikelihood returns the log-likelihood of every row of d under the
// model's distribution of its observed variables, and their sum. Missing
// cells (NaN) are marginalised: each row is scored under the marginal of
// its observed cells (exact belief propagation on the tree for the rows of
// rare missingness patterns, the Cholesky factor of the pattern's
// covariance for common ones).
func (g *Model) LogLikelihood(d *data.Dataset, opt model.InferOptions) ([]float64, float64, error) {
	if err := g.Validate(); err != nil {
		return nil, 0, err
	}
	b, err := g.bind(d)
	if err != nil {
		return nil, 0, err
	}
	p := len(b.obs)
	var full []float64
	out := make([]float64, b.rows)
	bp := newGaussBP(g, b.obs)
	useBP := bp.usable()
	nn := float64(g.Tree.NumNodes())
	for _, pt := range b.patterns() {
		idx, rows := pt.idx, pt.rows
		q := len(idx)
		if q == 0 {
			continue
		}
		// Rare patterns by belief propagation, one row at a time; common
		// ones by one Cholesky factorisation of their covariance.
		if fq := float64(q); useBP && float64(len(rows))*rowCost*nn < fq*fq*fq/3+fq*fq*float64(len(rows)) {
			for _, r := range rows {
				out[r] = bp.row(b.cols, r)
			}
			continue
		}
		if full == nil {
			full = g.covariance(b.obs, b.obs)
		}
		var ch mat.Cholesky
		if !ch.Factorize(subCovariance(full, p, idx)) {
			return nil, 0, errors.New("model: the model's covariance of the observed variables is singular (a correlation of ±1?)")
		}
		logdet := ch.LogDet()
		x := mat.NewVecDense(q, nil)
		y := mat.NewVecDense(q, nil)
		c0 := -0.5 * (float64(q)*math.Log(2*math.Pi) + logdet)
		for _, r := range rows {
			for a, i := range idx {
				x.SetVec(a, b.cols[i][r]-g.Mean[b.obs[i]])
			}
			if err := ch.SolveVecTo(y, x); err != nil {
				return nil, 0, err
			}
			out[r] = c0 - 0.5*mat.Dot(x, y)
		}
	}
	return out, d.WeightedSum(out), nil
}

// Score is as discrete.Model.Score for a Gaussian model.
func (g *Model) Score(d *data.Dataset, opt model.InferOptions) (*model.Score, error) {
	_, ll, err := g.LogLikelihood(d, opt)
	if err != nil {
		return nil, err
	}
	return model.ScoreOf(ll, d, g.NumParams(), g.Tree.NumHidden()), nil
}

// Conditional returns, for each of the given nodes and every row, the mean
// and standard deviation of the node given the row's observed cells:
// posterior of hidden variables, and prediction of missing cells (an
// observed cell is its own mean, with standard deviation 0). It runs
// exact belief propagation on the tree, one row at a time, or, when an
// edge has a correlation of ±1, conditions the joint covariance of each
// missingness pattern.
func (g *Model) Conditional(d *data.Dataset, nodes []int) (mean, sd [][]float64, err error) {
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	if err := model.CheckNodes(g.Tree, nodes); err != nil {
		return nil, nil, err
	}
	b, err := g.bind(d)
	if err != nil {
		return nil, nil, err
	}
	bp := newGaussBP(g, b.obs)
	if !bp.usable() {
		return g.conditionalDense(b, nodes)
	}
	mean, sd = make([][]float64, len(nodes)), make([][]float64, len(nodes))
	for x := range nodes {
		mean[x], sd[x] = make([]float64, b.rows), make([]float64, b.rows)
	}
	for r := 0; r < b.rows; r++ {
		bp.row(b.cols, r)
		for x, v := range nodes {
			mean[x][r] = bp.mu[v] + bp.sd[v]*bp.m[v]
			sd[x][r] = bp.sd[v] * math.Sqrt(math.Max(0, bp.v[v]))
		}
	}
	return mean, sd, nil
}

// conditionalDense is Conditional by conditioning the covariance of each
// missingness pattern.
func (g *Model) conditionalDense(b *gbinding, nodes []int) (mean, sd [][]float64, err error) {
	p := len(b.obs)
	col := make(map[int]int, p)
	for j, v := range b.obs {
		col[v] = j
	}
	mean, sd = make([][]float64, len(nodes)), make([][]float64, len(nodes))
	for x := range nodes {
		mean[x], sd[x] = make([]float64, b.rows), make([]float64, b.rows)
	}
	full := g.covariance(b.obs, b.obs)
	cross := g.covariance(nodes, b.obs) // len(nodes)×p
	for _, pt := range b.patterns() {
		idx, rows := pt.idx, pt.rows
		q := len(idx)
		// A = Σ_zx Σ_xx⁻¹ (len(nodes)×q), conditional variance diag.
		var A *mat.Dense
		if q > 0 {
			var ch mat.Cholesky
			if !ch.Factorize(subCovariance(full, p, idx)) {
				return nil, nil, errors.New("model: the model's covariance of the observed variables is singular")
			}
			zx := mat.NewDense(len(nodes), q, nil)
			for x := range nodes {
				for a, i := range idx {
					zx.Set(x, a, cross[x*p+i])
				}
			}
			var inv mat.Dense
			if err := ch.SolveTo(&inv, zx.T()); err != nil {
				return nil, nil, err
			}
			A = mat.DenseCopyOf(inv.T())
		}
		for x, v := range nodes {
			cv := g.Var[v]
			if A != nil {
				for a, i := range idx {
					cv -= A.At(x, a) * cross[x*p+i]
				}
			}
			s := math.Sqrt(math.Max(0, cv))
			for _, r := range rows {
				m := g.Mean[v]
				if A != nil {
					for a, i := range idx {
						m += A.At(x, a) * (b.cols[i][r] - g.Mean[b.obs[i]])
					}
				}
				mean[x][r], sd[x][r] = m, s
				if j, ok := col[v]; ok && !math.IsNaN(b.cols[j][r]) {
					mean[x][r], sd[x][r] = b.cols[j][r], 0
				}
			}
		}
	}
	return mean, sd, nil
}

// Options configures Fit. The zero value runs SQUAREM-accelerated EM
// until its bound on the remaining gain in log-likelihood is at most
// DefaultTol·min(|L|, 100) nat, for at most DefaultMaxIter E-steps.
type Options struct {
	// MaxIter bounds the E-steps of EM (0: DefaultMaxIter; negative:
	// none, the closed-form start only). A plain EM iteration is one
	// E-step, a SQUAREM cycle three.
	MaxIter int
	// Tol is the tolerance of the stopping rule (0: DefaultTol; negative
	// is an error); see Stop.
	Tol float64
	// Accel selects the acceleration, as for discrete EM (zero:
	// model.AccelSQUAREM, see extrapolation below).
	Accel model.Accel
	// Stop selects the stopping rule (zero: model.StopAuto).
	//
	// StopAuto is discrete EM's rule (see model.StopAuto): EM stops when
	// the last cycle gained at most ε and a plain EM step from the start
	// of that cycle at most ε/1000, so that the remaining gain is at most
	// ε for any rate of convergence up to 1 − 1/1000. Here ε is
	// Tol·min(|L|, 100) nat rather than Tol·|L|: the log-likelihood of
	// continuous data depends on their units (data in millimetres instead
	// of metres shift L by n·p·log 1000), gains do not; and on complete
	// data a Gaussian E-step costs the same whatever the number of rows
	// (it works on the sample moments), so that a bound of 1e-4 nat at
	// DefaultTol costs a few SQUAREM cycles more, not passes over the
	// data. (Rows with missing cells in rare patterns are visited one by
	// one in every E-step.) StopRelative is the relative-change rule
	// |ΔL|/|L| ≤ Tol between cycles (Fit's rule before StopAuto: it
	// stopped up to 60 nat short on flat ridges).
	//
	// The rule cannot see a local maximum it has not reached, and the
	// likelihood of a latent tree often has several on weak data
	// (correlations of 0.1–0.5 at a few hundred rows), some at the bound
	// |ρ| = 1 (see snap). Such fits may also take thousands of E-steps,
	// beyond DefaultMaxIter; the EMResult then reports Converged false.
	Stop model.Stop
	// Progress, if not nil, is called after every E-step with the number
	// of E-steps so far and the log-likelihood of the parameters reached
	// (the entry just added to the EMResult's Trace).
	Progress func(iter int, loglik float64)
	// Cache, if not nil, shares the data's missingness patterns and sample
	// moments between fits of several trees to the same data.
	Cache *Cache
	// NoSnap turns off the jumps of edges near the bound |ρ| = 1 to it
	// (see snap), which a fit to convergence needs but a short fit that
	// only starts a search does not: in learn's first fit of a
	// contraction search, capped at a few dozen E-steps, the jumps' trial
	// E-steps took a third of them.
	NoSnap bool
}

// Fit fits a Gaussian latent tree model on t to the continuous data
// d by maximum likelihood.
//
// The start is in closed form: observed means and variances are the
// sample ones (over each column's observed cells), and edge correlations
// come from the tree's edge lengths, |ρ| = e^{−length} (Choi et al. 2011,
// eq. 5: exact when the lengths are the information distances of a
// Gaussian latent tree), with signs from the pairwise-complete sample
// correlations of surrogates (every hidden variable positively correlated
// with its nearest observed variable, which fixes its sign); unknown
// lengths start at ρ = 0.5.
//
// EM then maximises the likelihood of all rows. Missing cells (NaN) are
// marginalised: rows are grouped by their pattern of observed cells, and
// the E-step takes the expected sufficient statistics of the hidden
// variables and of the missing cells given the observed ones, the
// conditional means and covariances of the joint Gaussian. A pattern
// shared by many rows is handled once from its rows' sample moments; the
// rows of rare patterns by exact belief propagation on the tree, one row
// at a time. The M-step sets every observed mean and variance and every
// edge correlation to its expected complete-data estimate (hidden
// variables keep mean 0 and variance 1, which fixes their scale).
//
// SQUAREM (the default Accel) extrapolates as for discrete EM (see
// model.AccelSQUAREM) in the coordinates (μ, log σ², atanh ρ), in which
// every point is a valid model (|ρ| is capped below 1); an extrapolation
// is kept only if its log-likelihood is at least that of the last plain
// EM point, so that the log-likelihood never decreases. Between cycles it
// tries edges whose |ρ| nears 1 at the bound (gaussLoop.snap), where the
// likelihood of weak data often peaks and EM alone crawls, and before it
// stops it checks that every edge at the bound belongs there
// (gaussLoop.release). With StopAuto, after qnAfter SQUAREM cycles it
// switches to BFGS on the same coordinates (gaussLoop.quasiNewton), whose
// gradient every E-step gives (Fisher's identity), and stops when BFGS's
// quadratic model bounds the remaining gain: EM's linear convergence on
// trees with many hidden variables otherwise takes thousands of E-steps
// for the last nats. AccelNone is plain EM, without any of these.
//
// The EMResult counts in Rows (and DistinctRows) all the rows of d and in
// Patterns the missingness patterns; its Trace starts with the
// log-likelihood of the closed-form start and ends with that of the
// returned model (LogLik). Converged is false when MaxIter ended EM.
func Fit(t *tree.Tree, d *data.Dataset, opt Options) (*Model, *model.EMResult, error) {
	return fit(t, opt, func(g *Model) (*gaussEM, error) {
		b, err := g.bind(d)
		if err != nil {
			return nil, err
		}
		if err := g.startGaussian(b); err != nil {
			return nil, err
		}
		pats, moments := opt.Cache.patterns(d, g, b)
		return newGaussEM(g, b, pats, moments), nil
	})
}

// fit is Fit and FitMoments: setup binds the new model g on t to its
// data, sets the closed-form start and returns the EM state.
func fit(t *tree.Tree, opt Options, setup func(g *Model) (*gaussEM, error)) (*Model, *model.EMResult, error) {
	t0 := time.Now()
	if opt.Tol < 0 || math.IsNaN(opt.Tol) || math.IsInf(opt.Tol, 0) {
		return nil, nil, fmt.Errorf("model: EM tolerance %g must be positive (0: model.DefaultTol %g)", opt.Tol, model.DefaultTol)
	}
	if opt.Accel != model.AccelSQUAREM && opt.Accel != model.AccelNone {
		return nil, nil, fmt.Errorf("model: unknown EM acceleration %d", int(opt.Accel))
	}
	if opt.Stop != model.StopAuto && opt.Stop != model.StopRelative {
		return nil, nil, fmt.Errorf("model: unknown EM stopping rule %d", int(opt.Stop))
	}
	if t == nil {
		return nil, nil, errors.New("model: no tree")
	}
	root := model.DefaultRoot(t)
	g, err := New(t, root, 0.5)
	if err != nil {
		return nil, nil, err
	}
	em, err := setup(g)
	if err != nil {
		return nil, nil, err
	}
	defer em.release()
	b := em.b
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = model.DefaultMaxIter
	}
	tol := opt.Tol
	if tol == 0 {
		tol = model.DefaultTol
	}
	res := &model.EMResult{Rows: b.rows, DistinctRows: b.rows, Patterns: len(em.pats)}
	l := &gaussLoop{em: em, maxIter: max(maxIter, 1), noSnap: opt.NoSnap, stop: squarem.Stopper{Relative: opt.Stop == model.StopRelative, Tol: tol, Scale: gainScale},
		record: func(it int, ll float64) {
			res.Trace = append(res.Trace, ll)
			if opt.Progress != nil {
				opt.Progress(it, ll)
			}
		}}
	var conv bool
	switch {
	case maxIter < 0:
		// The closed-form start only: one E-step for its log-likelihood.
		l.maxIter = 0
		if _, err = l.estep(); err == nil {
			l.emit(l.cur)
		}
		conv = true
	case opt.Accel == model.AccelNone:
		conv, err = l.plain()
	default:
		conv, err = l.squarem()
	}
	if err != nil {
		return nil, nil, err
	}
	res.LogLik, res.Iterations, res.Converged = l.cur, l.it, conv
	res.Phases.Full = model.EMPhase{ESteps: l.it, Seconds: time.Since(t0).Seconds()}
	return g, res, nil
}

// qnAfter is the number of SQUAREM cycles before the quasi-Newton phase.
const qnAfter = 5

// gainScale caps the |L| of StopAuto's tolerance Tol·min(|L|, gainScale).
const gainScale = 100

// gaussLoop runs EM on the model of em. The model's parameters are always
// those whose log-likelihood is cur, and st holds their expected
// statistics.
type gaussLoop struct {
	em      *gaussEM
	maxIter int
	noSnap  bool // Options.NoSnap
	stop    squarem.Stopper
	record  func(it int, ll float64)
	it      int // E-steps so far
	st      *gaussStats
	cur     float64
	tried   []float64 // per node: 1 − |ρ| when snap last tried the edge
	// bufs is the memory of the statistics: an E-step writes in the one
	// that is not st (see estep).
	bufs [2]*gaussStats
	// lastGain is the gain in log-likelihood of the last step of the
	// quasi-Newton phase (of the last SQUAREM cycle when it starts).
	lastGain float64
}

// estep runs an E-step at the model's parameters, sets st and cur, and
// returns the log-likelihood.
//
// Its statistics are written in the memory of any but the current ones:
// every caller that keeps statistics to restore them after an E-step
// keeps the current ones (l.st), and restores them before the next
// E-step.
func (l *gaussLoop) estep() (float64, error) {
	i := 0
	if l.bufs[0] == l.st {
		i = 1
	}
	st, err := l.em.estepInto(l.bufs[i])
	if err != nil {
		return math.Inf(-1), err
	}
	l.bufs[i] = st
	l.it++
	l.st, l.cur = st, st.ll
	return st.ll, nil
}

func (l *gaussLoop) emit(ll float64) { l.record(l.it, ll) }

// plain runs plain EM until the stopping rule or maxIter E-steps; it
// reports convergence.
func (l *gaussLoop) plain() (bool, error) {
	ll, err := l.estep()
	if err != nil {
		return false, err
	}
	l.emit(ll)
	l.stop.Done(ll, math.Inf(1))
	for l.it < l.maxIter {
		l.em.mstep(l.st)
		next, err := l.estep()
		if err != nil {
			return false, err
		}
		l.emit(next)
		gain := next - ll
		ll = next
		if l.stop.Done(ll, gain) {
			return true, nil
		}
	}
	return false, nil
}

// squarem runs SQUAREM cycles (see model.AccelSQUAREM) until the stopping
// rule, checked at cycle boundaries, or maxIter E-steps; it reports
// convergence. The model ends at the last point evaluated that was
// accepted.
func (l *gaussLoop) squarem() (bool, error) {
	em := l.em
	n := em.paramLen()
	// The four parameter vectors, in one pooled buffer.
	vecs := zeroBuf(4 * n)
	defer putBuf(vecs)
	p0, p1, p2, pe := vecs[:n:n], vecs[n:2*n:2*n], vecs[2*n:3*n:3*n], vecs[3*n:]
	l.tried = make([]float64, em.g.Tree.MaxID())
	for i := range l.tried {
		l.tried[i] = 1
	}
	ll, err := l.estep()
	if err != nil {
		return false, err
	}
	l.emit(ll)
	l.stop.Done(ll, math.Inf(1))
	stepMax := 1.0
	cycles := 0
	for l.it < l.maxIter {
		em.save(p0)
		em.mstep(l.st)
		em.save(p1)
		ll1, err := l.estep()
		if err != nil {
			return false, err
		}
		l.emit(ll1)
		gEM := ll1 - ll
		st1 := l.st
		em.mstep(st1)
		em.save(p2)
		if l.it >= l.maxIter {
			// No budget to evaluate θ2: end at θ1.
			em.load(p1)
			l.st, l.cur = st1, ll1
			return false, nil
		}
		alpha := squarem.StepLength(p0, p1, p2, stepMax)
		if alpha < -1 {
			squarem.Extrapolate(p0, p1, p2, pe, alpha)
			em.load(pe)
		}
		lle, err := l.estep()
		if err != nil && alpha < -1 {
			// The extrapolation left the models EM can handle (a
			// singular covariance): reject it.
			lle, err = math.Inf(-1), nil
		}
		if err != nil {
			return false, err
		}
		accepted := lle >= ll1
		if accepted {
			l.emit(lle)
			if -alpha >= stepMax {
				stepMax *= squarem.StepGrow
			}
		} else {
			// Back to the plain EM point θ2, whose E-step ends the cycle.
			l.emit(ll1)
			em.load(p2)
			stepMax = max(1, min(stepMax, -alpha)/squarem.StepGrow)
		}
		if l.it >= l.maxIter {
			if !accepted {
				em.load(p1)
				l.st, l.cur = st1, ll1
			}
			return false, nil
		}
		if accepted {
			// One stabilising EM step from the extrapolated point.
			em.mstep(l.st)
		}
		if ll, err = l.estep(); err != nil {
			return false, err
		}
		l.emit(ll)
		if l.it < l.maxIter && !l.noSnap {
			if ll, err = l.snap(); err != nil {
				return false, err
			}
		}
		prev := l.stop.Prev()
		if l.stop.Done(ll, gEM) {
			released, err := l.release()
			if err != nil || !released {
				return err == nil, err
			}
			ll = l.cur
		}
		if cycles++; !l.stop.Relative && cycles >= qnAfter {
			l.lastGain = ll - prev
			return l.quasiNewton(l.stop.Eps(ll))
		}
	}
	return false, nil
}

// snapFrom is the |ρ| from which snap tries an edge at the bound. Of 0.8,
// 0.9, 0.95 and 0.98 on six test fits (three-factor and random binary
// trees, 8 to 40 variables, n 200 to 1000), 0.95 came within 1e-3 nat of
// the best end on all six; 0.8 and 0.9 jumped early into a lower peak on
// one (0.55 nat lower), 0.98 on another and took more E-steps.
const snapFrom = 0.95

// snap tries every edge whose |ρ| is at least snapFrom, below rhoMax, and
// whose 1 − |ρ| has at least halved since the edge was last tried, at
// ±rhoMax: all at once, then, if that lowers the log-likelihood, one at a
// time. It keeps every jump that does not lower the log-likelihood and
// returns the log-likelihood reached.
//
// Why: on weak or small data the likelihood of a tree often peaks at the
// bound, |ρ| = 1 on an edge (two hidden variables that coincide, or an
// observed variable that equals a hidden one), and EM approaches the
// bound sublinearly, slower the closer it gets: no stopping rule on its
// gains is safe there, and SQUAREM's extrapolation, whose step is one
// length for all parameters, does not reach it either. On the
// three-factor model of nine ability scores with a root-to-factor edge at
// the bound, SQUAREM was still 0.003 nat short after 900 E-steps. A jump
// to the bound costs one E-step; when the peak is interior it is
// rejected, and tried again only once EM has halved that edge's distance
// to the bound.
func (l *gaussLoop) snap() (float64, error) {
	g := l.em.g
	var cand []int
	for _, v := range l.em.nodes {
		if v == g.Root {
			continue
		}
		if a := math.Abs(g.Rho[v]); a >= snapFrom && a < rhoMax && 1-a <= l.tried[v]/2 {
			cand = append(cand, v)
		}
	}
	for _, v := range cand {
		l.tried[v] = 1 - math.Abs(g.Rho[v])
	}
	if len(cand) == 0 || l.it >= l.maxIter {
		return l.cur, nil
	}
	if len(cand) > 1 {
		if ok, err := l.trySnap(cand); ok || err != nil {
			return l.cur, err
		}
	}
	for _, v := range cand {
		if l.it >= l.maxIter {
			break
		}
		if _, err := l.trySnap([]int{v}); err != nil {
			return l.cur, err
		}
	}
	return l.cur, nil
}

// releaseGap is how far from the bound release moves an edge: |ρ| = 1 −
// releaseGap.
const releaseGap = 1e-3

// release checks the edges at the bound |ρ| = rhoMax: the log-likelihood
// must not rise when an edge moves inward to 1 − releaseGap (a peak at the
// bound is one where it falls), else the jump there was wrong and, since a
// correlation of ±1 is a fixed point of EM, EM would never leave it. It
// keeps every move that raises the log-likelihood and reports whether
// there was one; each edge costs an E-step.
func (l *gaussLoop) release() (bool, error) {
	g := l.em.g
	released := false
	for _, v := range l.em.nodes {
		if v == g.Root || math.Abs(g.Rho[v]) < rhoMax || l.it >= l.maxIter {
			continue
		}
		old := g.Rho[v]
		st, ll := l.st, l.cur
		g.Rho[v] = math.Copysign(1-releaseGap, old)
		llr, err := l.estep()
		if err == nil && llr > ll {
			l.emit(llr)
			released = true
			l.tried[v] = releaseGap
			continue
		}
		if err != nil {
			l.it++
		}
		g.Rho[v] = old
		l.st, l.cur = st, ll
		l.emit(ll)
	}
	return released, nil
}

// trySnap sets the edges above nodes to ±rhoMax and keeps them there if
// the log-likelihood does not decrease; else it restores the model. It
// costs one E-step.
func (l *gaussLoop) trySnap(nodes []int) (bool, error) {
	g := l.em.g
	old := make([]float64, len(nodes))
	for i, v := range nodes {
		old[i] = g.Rho[v]
		g.Rho[v] = math.Copysign(rhoMax, g.Rho[v])
	}
	st, ll := l.st, l.cur
	lls, err := l.estep()
	if err == nil && lls >= ll {
		l.emit(lls)
		return true, nil
	}
	// Rejected (or a singular model): restore θ and its statistics.
	for i, v := range nodes {
		g.Rho[v] = old[i]
	}
	if err != nil {
		l.it++ // the E-step was spent
	}
	l.st, l.cur = st, ll
	l.emit(ll)
	return false, nil
}

// paramLen is the length of the parameter vector of save and load: a mean
// and a log-variance per observed node, atanh ρ per edge.
func (em *gaussEM) paramLen() int {
	t := em.g.Tree
	return 2*t.NumObserved() + len(em.nodes) - 1
}

// save writes the model's parameters to dst as (μ, log σ²) of every
// observed node and atanh ρ of every edge, in node order.
func (em *gaussEM) save(dst []float64) {
	g := em.g
	k := 0
	for _, v := range em.nodes {
		if !g.Tree.IsHidden(v) {
			dst[k], dst[k+1] = g.Mean[v], math.Log(g.Var[v])
			k += 2
		}
		if v != g.Root {
			dst[k] = g.Rho[v]
			k++
		}
	}
}

// load sets the model's parameters from src (as written by save), capping
// |ρ| at rhoMax and the variances to finite positive values.
func (em *gaussEM) load(src []float64) {
	g := em.g
	k := 0
	for _, v := range em.nodes {
		if !g.Tree.IsHidden(v) {
			g.Mean[v] = src[k]
			g.Var[v] = math.Exp(max(-700, min(700, src[k+1])))
			k += 2
		}
		if v != g.Root {
			g.Rho[v] = max(-rhoMax, min(rhoMax, src[k]))
			k++
		}
	}
}

// startGaussian sets the closed-form start: observed means and variances
// from each column's observed cells, correlations from the edge lengths
// with signs from pairwise-complete correlations of surrogates.
func (g *Model) startGaussian(b *gbinding) error {
	t := g.Tree
	for j, v := range b.obs {
		n, wn, s := 0, 0.0, 0.0
		for r, x := range b.cols[j] {
			if w := b.wt(r); !math.IsNaN(x) && w > 0 {
				n++
				wn += w
				s += w * x
			}
		}
		if n < 2 {
			return fmt.Errorf("model: variable %q has %d observed values (of non-zero weight); at least 2 are needed", t.Name(v), n)
		}
		mean := s / wn
		ss := 0.0
		for r, x := range b.cols[j] {
			if w := b.wt(r); !math.IsNaN(x) && w > 0 {
				ss += w * (x - mean) * (x - mean)
			}
		}
		if !(ss > 0) || math.IsInf(ss, 0) {
			return fmt.Errorf("model: variable %q has zero or infinite variance", t.Name(v))
		}
		g.Mean[v], g.Var[v] = mean, ss/wn
	}
	// sign of the pairwise-complete covariance of columns i and j.
	sign := func(i, j int) float64 {
		if i == j {
			return 1
		}
		ci, cj := b.cols[i], b.cols[j]
		mi, mj := g.Mean[b.obs[i]], g.Mean[b.obs[j]]
		s := 0.0
		for r := range ci {
			if !math.IsNaN(ci[r]) && !math.IsNaN(cj[r]) {
				s += b.wt(r) * (ci[r] - mi) * (cj[r] - mj)
			}
		}
		if s < 0 {
			return -1
		}
		return 1
	}
	g.startCorrelations(g.columnOf(b), sign)
	return nil
}

// columnOf returns, for every node identifier, the binding's column of the
// node, or −1 for a hidden node.
func (g *Model) columnOf(b *gbinding) []int {
	pos := make([]int, g.Tree.MaxID())
	for i := range pos {
		pos[i] = -1
	}
	for j, v := range b.obs {
		pos[v] = j
	}
	return pos
}

// startCorrelations sets the edge correlations of the closed-form start:
// |ρ| from the edge lengths (0.5 where unknown), signs from sign(i, j),
// the sign of the covariance of columns i and j, of the edge's ends'
// surrogates (pos maps nodes to columns).
func (g *Model) startCorrelations(pos []int, sign func(i, j int) float64) {
	t := g.Tree
	sur := model.Surrogates(t)
	r := g.Rooted()
	for _, v := range r.Order {
		if v == g.Root {
			continue
		}
		u := r.Parent[v]
		l, _ := t.EdgeLength(u, v)
		rho := 0.5
		if !math.IsNaN(l) {
			rho = math.Min(math.Exp(-l), startRhoMax)
		}
		s := 1.0
		if i, j := pos[sur[u]], pos[sur[v]]; i != j {
			s = sign(i, j)
		}
		g.Rho[v] = rho * s
	}
	g.Refresh()
}

// gaussEM holds what Gaussian EM reuses between iterations: the
// missingness patterns of the data, with the sample moments of the
// patterns handled as a whole.
type gaussEM struct {
	g     *Model
	b     *gbinding
	nodes []int
	pats  []gaussPattern
	bp    *gaussBP
	fp    []*forestPattern // per dense pattern, set by forest
	mbuf  []float64        // mstep's scratch
}

// gaussPattern is a pattern of observed cells. When dense, its rows enter
// the E-step through their count, mean and scatter matrix (about the
// mean) over the observed columns idx.
type gaussPattern struct {
	pattern
	cnt     float64 // the weight of the rows
	dense   bool
	mean    []float64
	scatter []float64 // len(idx)² row-major
}

// rowCost is the cost of belief propagation for one row, per node, in the
// units of the dense E-step's flop count.
const rowCost = 30

func newGaussEM(g *Model, b *gbinding, pats []pattern, moments []*patternMoments) *gaussEM {
	em := &gaussEM{g: g, b: b, nodes: g.Tree.Nodes()}
	nn := float64(len(em.nodes))
	for i, pt := range pats {
		gp := gaussPattern{pattern: pt, cnt: b.weightOf(pt.rows)}
		q := float64(len(pt.idx))
		if q > 0 && gp.cnt > 0 && float64(len(pt.rows))*rowCost*nn > q*q*q/3+2*nn*q*q {
			gp.dense = true
			if moments != nil {
				gp.mean, gp.scatter = moments[i].get(b, pt)
			} else {
				gp.mean, gp.scatter = sampleMoments(b, pt)
			}
		}
		em.pats = append(em.pats, gp)
	}
	return em
}

// gaussStats are expected sufficient statistics, indexed by node: sums over
// rows of E[x_v], E[x_v²] and E[x_v x_parent(v)].
type gaussStats struct {
	s1, s2, sp []float64
	ll         float64
}

// newGaussStats returns zero statistics of n nodes, in the memory of st
// when it is not nil.
func newGaussStats(st *gaussStats, n int) *gaussStats {
	if st == nil || len(st.s1) != n {
		return &gaussStats{s1: make([]float64, n), s2: make([]float64, n), sp: make([]float64, n)}
	}
	clear(st.s1)
	clear(st.s2)
	clear(st.sp)
	st.ll = 0
	return st
}

// estep computes the expected sufficient statistics under the current
// parameters and the log-likelihood of the data.
func (em *gaussEM) estep() (*gaussStats, error) { return em.estepInto(nil) }

// estepInto is estep, writing the statistics in the memory of buf when it
// is not nil.
func (em *gaussEM) estepInto(buf *gaussStats) (*gaussStats, error) {
	g, b := em.g, em.b
	n := g.Tree.MaxID()
	st := newGaussStats(buf, n)
	r := g.Rooted()
	if em.bp == nil {
		em.bp = newGaussBP(g, b.obs)
	}
	bp := em.bp
	bp.refresh()
	if !bp.usable() {
		return nil, errors.New("model: EM reached an edge correlation of ±1")
	}
	for i, pt := range em.pats {
		if !pt.dense {
			for _, row := range pt.rows {
				w := b.wt(row)
				if w == 0 {
					continue
				}
				st.ll += w * bp.row(b.cols, row)
				for _, v := range em.nodes {
					ex := bp.mu[v] + bp.sd[v]*bp.m[v]
					st.s1[v] += w * ex
					st.s2[v] += w * (ex*ex + bp.sd[v]*bp.sd[v]*bp.v[v])
					if p := r.Parent[v]; p >= 0 {
						ep := bp.mu[p] + bp.sd[p]*bp.m[p]
						st.sp[v] += w * (ex*ep + bp.sd[v]*bp.sd[p]*bp.cp[v])
					}
				}
			}
			continue
		}
		if err := em.forestPattern(i, st); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// loglik returns the log-likelihood of the data of em's patterns, which
// must all be dense, at the model's parameters.
func (em *gaussEM) loglik() (float64, error) {
	n := em.g.Tree.MaxID()
	st := &gaussStats{s1: make([]float64, n), s2: make([]float64, n), sp: make([]float64, n)}
	for i, pt := range em.pats {
		if !pt.dense {
			return 0, errors.New("model: loglik of a sparse pattern")
		}
		if err := em.forestPattern(i, st); err != nil {
			return 0, err
		}
	}
	return st.ll, nil
}

// nodeIndex returns the position of node v in em.nodes (which is sorted).
func (em *gaussEM) nodeIndex(v int) int {
	lo, hi := 0, len(em.nodes)
	for lo < hi {
		mid := (lo + hi) / 2
		if em.nodes[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// mstep sets the parameters to the complete-data estimates from st.
func (em *gaussEM) mstep(st *gaussStats) {
	g := em.g
	n := em.b.n
	r := g.Rooted()
	if size := 2 * g.Tree.MaxID(); len(em.mbuf) != size {
		em.mbuf = make([]float64, size)
	}
	// Every node's entries are written before they are read.
	mean, vr := em.mbuf[:len(em.mbuf)/2], em.mbuf[len(em.mbuf)/2:]
	for _, v := range em.nodes {
		mean[v] = st.s1[v] / n
		vr[v] = st.s2[v]/n - mean[v]*mean[v]
	}
	for _, v := range em.nodes {
		if p := r.Parent[v]; p >= 0 {
			c := st.sp[v]/n - mean[v]*mean[p]
			if den := math.Sqrt(vr[v] * vr[p]); den > 0 {
				g.Rho[v] = math.Max(-rhoMax, math.Min(rhoMax, c/den))
			}
		}
		if !g.Tree.IsHidden(v) && vr[v] > 0 && !math.IsInf(vr[v], 0) {
			g.Mean[v], g.Var[v] = mean[v], vr[v]
		}
	}
}
