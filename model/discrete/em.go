package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/internal/squarem"
	"github.com/latentree/latentree/tree"
)

// compress returns a binding over the distinct rows of b, each weighted by
// its number of copies: EM and scoring then cost as many rows as there are
// distinct rows. It returns b itself when that does not pay (or rows
// have priors of their own, binding.rootPrior): when the
// first compressProbe rows are nearly all distinct (more than 90%), or
// when the distinct rows pass half of all rows, so that data of many
// variables (every row different) cost no map of all their rows.
func (b *binding) compress() *binding {
	if b.rootPrior != nil {
		return b // rows differ by their covariates
	}
	var nodes []int
	for v, c := range b.codes {
		if c != nil {
			nodes = append(nodes, v)
		}
	}
	index := make(map[string]int, min(b.rows, compressProbe))
	key := make([]byte, 2*len(nodes))
	var first []int
	var weight []float64
	for r := 0; r < b.rows; r++ {
		if r == compressProbe && len(first) > compressProbe*9/10 || len(first) > b.rows/2 {
			return b
		}
		for x, v := range nodes {
			c := b.codes[v][r]
			key[2*x], key[2*x+1] = byte(c), byte(c>>8)
		}
		if u, ok := index[string(key)]; ok {
			weight[u] += b.w(r)
			continue
		}
		index[string(key)] = len(first)
		first = append(first, r)
		weight = append(weight, b.w(r))
	}
	if len(first) == b.rows {
		return b // no two rows alike
	}
	out := &binding{col: b.col, remap: b.remap, rows: len(first), weight: weight, codes: make([][]uint16, len(b.codes))}
	for _, v := range nodes {
		col := make([]uint16, len(first))
		for u, r := range first {
			col[u] = b.codes[v][r]
		}
		out.codes[v] = col
	}
	return out
}

// compressProbe is the number of rows after which compress gives up if
// nearly all were distinct.
const compressProbe = 1 << 16

func (b *binding) w(r int) float64 {
	if b.weight == nil {
		return 1
	}
	return b.weight[r]
}

// counts are the expected sufficient statistics of a discrete model.
type counts struct {
	prior []float64
	cpt   [][]float64
	ll    float64
	// impossible is the weight of the rows of probability 0 (their
	// log-likelihood, −∞, is left out of ll).
	impossible float64
}

func (e *engine) newCounts() *counts {
	n := e.k[e.m.Root]
	for _, v := range e.order {
		if p := e.parent[v]; p >= 0 {
			n += e.k[p] * e.k[v]
		}
	}
	buf := make([]float64, n) // one allocation for all tables
	n = e.k[e.m.Root]
	c := &counts{prior: buf[:n:n], cpt: make([][]float64, len(e.k))}
	for _, v := range e.order {
		if p := e.parent[v]; p >= 0 {
			m := e.k[p] * e.k[v]
			c.cpt[v] = buf[n : n+m : n+m]
			n += m
		}
	}
	return c
}

func (c *counts) add(o *counts) {
	c.ll += o.ll
	c.impossible += o.impossible
	for i, x := range o.prior {
		c.prior[i] += x
	}
	for v, t := range o.cpt {
		for i, x := range t {
			c.cpt[v][i] += x
		}
	}
}

// estep adds the expected counts of rows [r0, r0+nb) to c.
func (e *engine) estep(b *binding, w *work, r0, nb int, c *counts) {
	e.upward(b, w, r0, nb, false)
	e.downward(b, w, r0, nb, false)
	m := e.m
	norm := w.tmp[:nb]
	for i := 0; i < nb; i++ {
		if !math.IsInf(w.logZ[i], -1) {
			c.ll += b.w(r0+i) * w.logZ[i]
		} else {
			c.impossible += b.w(r0 + i)
		}
	}
	for _, v := range e.order {
		k := e.k[v]
		lam := w.lam[v]
		p := e.parent[v]
		if p < 0 {
			pi := w.pi[v]
			clear(norm)
			for s := 0; s < k; s++ {
				for i := 0; i < nb; i++ {
					norm[i] += pi[s*blockRows+i] * lam[s*blockRows+i]
				}
			}
			for s := 0; s < k; s++ {
				acc := 0.0
				for i := 0; i < nb; i++ {
					if norm[i] > 0 {
						acc += b.w(r0+i) * pi[s*blockRows+i] * lam[s*blockRows+i] / norm[i]
					}
				}
				c.prior[s] += acc
			}
			if post := b.rootPost; post != nil {
				for i := 0; i < nb; i++ {
					for s := 0; s < k; s++ {
						if norm[i] > 0 {
							post[(r0+i)*k+s] = pi[s*blockRows+i] * lam[s*blockRows+i] / norm[i]
						} else {
							post[(r0+i)*k+s] = 0
						}
					}
				}
			}
			continue
		}
		kp := e.k[p]
		down := w.down[v]
		cpt := m.CPT[v]
		if codes := b.codes[v]; codes != nil && len(e.children[v]) == 0 {
			e.leafCounts(w, c.cpt[v], cpt, down, codes[r0:r0+nb], b.remap[v], kp, k, b, r0)
			continue
		}
		// Normaliser: Σ_a down(a) Σ_s P(s|a) λ(s) = Σ_a down(a) up(a)·scale;
		// computed directly.
		clear(norm)
		for a := 0; a < kp; a++ {
			d := down[a*blockRows : a*blockRows+nb]
			for s := 0; s < k; s++ {
				q := cpt[a*k+s]
				if q == 0 {
					continue
				}
				l := lam[s*blockRows : s*blockRows+nb]
				for i := range norm {
					norm[i] += d[i] * q * l[i]
				}
			}
		}
		for i := range norm {
			if norm[i] > 0 {
				norm[i] = b.w(r0+i) / norm[i]
			}
		}
		dst := c.cpt[v]
		for a := 0; a < kp; a++ {
			d := down[a*blockRows : a*blockRows+nb]
			for s := 0; s < k; s++ {
				q := cpt[a*k+s]
				if q == 0 {
					continue
				}
				l := lam[s*blockRows : s*blockRows+nb]
				acc := 0.0
				for i := range norm {
					acc += d[i] * l[i] * norm[i]
				}
				dst[a*k+s] += q * acc
			}
		}
	}
}

// leafCounts adds to dst the expected counts of an observed leaf with k
// states under its parent with kp states, for the block's codes: the loop
// below for the leaf's one-hot λ (all ones on a missing cell), in
// O(kp) per observed cell rather than O(kp × k). It adds the same terms in
// the same order (the skipped ones are exact zeros), so the counts are
// bit for bit those of the general loop.
func (e *engine) leafCounts(w *work, dst, cpt, down []float64, codes, remap []uint16, kp, k int, b *binding, r0 int) {
	if len(w.leafAcc) < kp*k {
		w.leafAcc = make([]float64, kp*k)
	}
	acc := w.leafAcc[:kp*k]
	clear(acc)
	for i, c := range codes {
		if c == data.Missing {
			norm := 0.0
			for a := 0; a < kp; a++ {
				d := down[a*blockRows+i]
				for s := 0; s < k; s++ {
					if q := cpt[a*k+s]; q != 0 {
						norm += d * q
					}
				}
			}
			if norm > 0 {
				norm = b.w(r0+i) / norm
			}
			for a := 0; a < kp; a++ {
				d := down[a*blockRows+i]
				for s := 0; s < k; s++ {
					acc[a*k+s] += d * norm
				}
			}
			continue
		}
		x := int(remap[c])
		norm := 0.0
		for a := 0; a < kp; a++ {
			if q := cpt[a*k+x]; q != 0 {
				norm += down[a*blockRows+i] * q
			}
		}
		if norm > 0 {
			norm = b.w(r0+i) / norm
		}
		for a := 0; a < kp; a++ {
			acc[a*k+x] += down[a*blockRows+i] * norm
		}
	}
	for j, q := range cpt[:kp*k] {
		if q != 0 {
			dst[j] += q * acc[j]
		}
	}
}

// expected runs the E-step over all rows in parallel. Every block of rows
// has its own counts, added up in block order, so the result does not
// depend on the number of workers or on scheduling: EM's decisions (the
// SQUAREM safeguard, the stopping rule) compare nearby likelihoods.
func (e *engine) expected(b *binding, nw int) *counts {
	if e.binaryModel() && b.rootPrior == nil {
		return e.expectedBinary(b, nw)
	}
	return e.expectedGeneric(b, nw)
}

// expectedGeneric is expected for any numbers of states.
func (e *engine) expectedGeneric(b *binding, nw int) *counts {
	nblocks := (b.rows + blockRows - 1) / blockRows
	if nblocks == 0 {
		return e.newCounts()
	}
	parts := make([]*counts, nblocks)
	e.forBlocks(b.rows, model.Workers(nw), func(_ int, w *work, r0, nb int) {
		c := e.newCounts()
		e.estep(b, w, r0, nb, c)
		parts[r0/blockRows] = c
	})
	for _, p := range parts[1:] {
		parts[0].add(p)
	}
	return parts[0]
}

// loglik returns the weighted log-likelihood of all rows of b, summed in
// block order (independent of the number of workers).
func (e *engine) loglik(b *binding, nw int) float64 {
	if e.binaryModel() && b.rootPrior == nil {
		// The binary E-step is about 3 times faster than the generic
		// upward pass, counts included.
		c := e.expectedBinary(b, nw)
		if c.impossible > 0 {
			return math.Inf(-1)
		}
		return c.ll
	}
	nblocks := (b.rows + blockRows - 1) / blockRows
	parts := make([]float64, nblocks)
	e.forBlocks(b.rows, model.Workers(nw), func(_ int, w *work, r0, nb int) {
		e.upward(b, w, r0, nb, false)
		s := 0.0
		for i := 0; i < nb; i++ {
			s += b.w(r0+i) * w.logZ[i]
		}
		parts[r0/blockRows] = s
	})
	total := 0.0
	for _, x := range parts {
		total += x
	}
	return total
}

// mstep sets the parameters from expected counts plus pseudo-counts.
func (m *Model) mstep(c *counts, pseudo float64) {
	normalizeInto(m.Prior, c.prior, 1, len(m.Prior), pseudo)
	r := m.Rooted()
	for _, v := range r.Order {
		if v == m.Root {
			continue
		}
		normalizeInto(m.CPT[v], c.cpt[v], m.States[r.Parent[v]], m.States[v], pseudo)
	}
}

// normalizeInto sets each row of dst to (src + pseudo) normalised; a row
// with no mass keeps its previous values. Expected counts are sums of
// differences of posteriors, so a count that is 0 in exact arithmetic may
// come out a little below 0: negative entries count as 0.
func normalizeInto(dst, src []float64, rows, k int, pseudo float64) {
	for a := 0; a < rows; a++ {
		s := 0.0
		for x := 0; x < k; x++ {
			s += max(src[a*k+x]+pseudo, 0)
		}
		if !(s > 0) {
			continue
		}
		for x := 0; x < k; x++ {
			dst[a*k+x] = max(src[a*k+x]+pseudo, 0) / s
		}
	}
}

// AutoSampleRows is the number of rows from which EM warms up on samples
// by default (EMOptions.Sample zero): below it a pass over the rows is
// cheap, and the warm-up's gain small and uncertain.
const AutoSampleRows = 1_000_000

// AutoSample is the warm-up sample size when EMOptions.Sample is zero:
// rows/32 from AutoSampleRows rows on (two stages, of 1/32 and 1/4 of the
// rows), else 0.
func AutoSample(rows int) int {
	if rows < AutoSampleRows {
		return 0
	}
	return rows / 32
}

// SampleGrowth is the factor between the sizes of successive warm-up
// samples (EMOptions.Sample).
const SampleGrowth = 8

// Randomize sets every CPT row and the prior to random distributions:
// Dirichlet(1) mixed with the uniform distribution (weight ½) so that no
// probability starts near 0.
// A nil src means the fixed seed rand.NewPCG(1, 2).
func (m *Model) Randomize(src rand.Source) {
	rng := seed.Rand(src, seed.Model)
	fill := func(row []float64) {
		s := 0.0
		for i := range row {
			row[i] = -math.Log(1 - rng.Float64())
			s += row[i]
		}
		for i := range row {
			row[i] = 0.5*row[i]/s + 0.5/float64(len(row))
		}
	}
	fill(m.Prior)
	r := m.Rooted()
	for _, v := range r.Order {
		if v == m.Root {
			continue
		}
		k := m.States[v]
		for a := 0; a < m.States[r.Parent[v]]; a++ {
			fill(m.CPT[v][a*k : (a+1)*k])
		}
	}
}

// Clone returns a deep copy of the model's parameters sharing its tree.
func (m *Model) Clone() *Model {
	c := &Model{Tree: m.Tree, Root: m.Root, States: append([]int(nil), m.States...), Prior: append([]float64(nil), m.Prior...)}
	c.Labels = make([][]string, len(m.Labels))
	for i, l := range m.Labels {
		c.Labels[i] = append([]string(nil), l...)
	}
	c.CPT = make([][]float64, len(m.CPT))
	for i, t := range m.CPT {
		c.CPT[i] = append([]float64(nil), t...)
	}
	c.Regression = m.Regression.Clone()
	return c
}

// FitEM fits the model's parameters to d by expectation–maximisation,
// keeping its structure and numbers of states; missing cells are
// marginalised. The model is updated in place. See EMOptions for the
// restarts, the acceleration and the stopping rule. A model with a root
// regression (Regression) runs EM from its current parameters, without
// restarts, the regression's coefficients fitted in each M-step by
// Newton's method and accelerated with the CPTs (see FitCovariates, which
// starts it).
func (m *Model) FitEM(d *data.Dataset, opt model.EMOptions) (*model.EMResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if m.Regression != nil {
		return m.fitRegressionEM(d, opt)
	}
	b0, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	if b0.rows == 0 {
		return nil, errors.New("model: no rows to fit")
	}
	rng := emRand(opt)
	ph, stages, opt, err := m.warmUp(b0.rows, func(n int) (data.Source, error) { return sampleRows(d, n, rng) }, opt, rng)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	b := b0.compress()
	res := &model.EMResult{Rows: b0.rows, DistinctRows: b.rows, Stages: stages, Phases: ph}
	res.Phases.Full.Seconds = time.Since(t0).Seconds()
	if err := m.runEM(b, res, opt, rng); err != nil {
		return nil, err
	}
	return res, nil
}

// emRand returns the generator of EM's random starts and samples.
func emRand(opt model.EMOptions) *rand.Rand {
	return seed.Rand(opt.Src, seed.Model)
}

// runEM runs the restarts and the final run of EM on rs, filling res
// (adding to its Phases).
func (m *Model) runEM(rs rowSet, res *model.EMResult, opt model.EMOptions, rng *rand.Rand) error {
	t0 := time.Now()
	maxIter, tol := emBounds(opt)
	restarts, rIter := opt.Restarts, opt.RestartIter
	if restarts == 0 {
		restarts = 5
	}
	if rIter == 0 {
		rIter = 10
	}
	e := newEngine(m)
	if restarts > 0 {
		best := math.Inf(-1)
		var bestModel *Model
		starts := restarts
		if opt.KeepInit {
			starts++
		}
		for s := 0; s < starts; s++ {
			cand := m.Clone()
			cand.rooted = m.rooted
			if !(opt.KeepInit && s == 0) {
				cand.Randomize(rng)
			}
			ce := &engine{m: cand, order: e.order, parent: e.parent, children: e.children, k: e.k}
			l := &emLoop{e: ce, rs: rs, workers: opt.Workers, pseudo: opt.Pseudo, maxIter: rIter, stop: squarem.Stopper{Relative: true, Tol: tol}}
			if rIter < 0 {
				// A full run: the final run's rule, acceleration and bound.
				l.maxIter, l.stop = maxIter, finalStopper(opt, tol)
				if opt.Accel == model.AccelNone {
					l.plain()
				} else {
					l.squarem()
				}
			} else {
				l.plain()
			}
			res.Phases.Restarts.ESteps += l.it
			if l.err != nil {
				return l.err
			}
			res.Starts = append(res.Starts, l.last)
			if l.last > best || bestModel == nil {
				best, bestModel = l.last, cand
			}
		}
		m.Prior = bestModel.Prior
		m.CPT = bestModel.CPT
		if rIter < 0 {
			res.Replicated = replicated(res.Starts, best)
		}
		res.Phases.Restarts.Seconds += time.Since(t0).Seconds()
		t0 = time.Now()
	}
	l := &emLoop{e: e, rs: rs, workers: opt.Workers, pseudo: opt.Pseudo, maxIter: maxIter, stop: finalStopper(opt, tol),
		record: func(it int, obj float64) {
			res.Trace = append(res.Trace, obj)
			if opt.Progress != nil {
				opt.Progress(it, obj)
			}
		}}
	var conv bool
	if opt.Accel == model.AccelNone {
		conv = l.plain()
	} else {
		conv = l.squarem()
	}
	if l.err != nil {
		return l.err
	}
	// The trace holds the objective before each M-step; report the
	// likelihood of the final parameters (an upward pass suffices).
	ll, err := rs.loglikAll(e, opt.Workers)
	if err != nil {
		return err
	}
	res.LogLik, res.Iterations, res.Converged = ll, l.it, conv
	res.Phases.Full.ESteps += l.it
	res.Phases.Full.Seconds += time.Since(t0).Seconds()
	return nil
}

// finalStopper is the stopping rule of EM's final run: opt's rule with
// tolerance tol, and opt.Gain nats at least.
func finalStopper(opt model.EMOptions, tol float64) squarem.Stopper {
	return squarem.Stopper{Relative: opt.Stop == model.StopRelative, Tol: tol, Abs: opt.Gain}
}

// emBounds returns opt's MaxIter and Tol, or their defaults when not
// positive.
func emBounds(opt model.EMOptions) (maxIter int, tol float64) {
	maxIter, tol = opt.MaxIter, opt.Tol
	if maxIter <= 0 {
		maxIter = model.DefaultMaxIter
	}
	if tol <= 0 {
		tol = model.DefaultTol
	}
	return maxIter, tol
}

// ReplicateTol is the distance in log-likelihood (nats) within which a
// full restart counts as having reached the best one
// (model.EMResult.Replicated).
const ReplicateTol = 1e-3

// replicated counts the starts whose objective is within ReplicateTol of
// best.
func replicated(starts []float64, best float64) int {
	n := 0
	for _, s := range starts {
		if s >= best-ReplicateTol {
			n++
		}
	}
	return n
}

// ForData returns a discrete model on t for the variables of d: every
// observed node takes its number of states and state labels from the
// column of the same name, every hidden node has hiddenStates states, and
// the root is a hidden node of largest degree (or the first node). The
// parameters are uniform; fit them with FitEM.
func ForData(t *tree.Tree, d *data.Dataset, hiddenStates int) (*Model, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	return ForVariables(t, d.Vars(), hiddenStates)
}

// ForVariables is ForData given the data's variables (from a Source's
// statistics, stats.Stats.Var) instead of the data.
func ForVariables(t *tree.Tree, vars []data.Variable, hiddenStates int) (*Model, error) {
	if hiddenStates < 1 {
		return nil, fmt.Errorf("model: hidden variables need at least 1 state, got %d", hiddenStates)
	}
	index := make(map[string]int, len(vars))
	for j, v := range vars {
		index[v.Name] = j
	}
	states := make([]int, t.MaxID())
	labels := make([][]string, t.MaxID())
	for _, v := range t.Nodes() {
		if t.IsHidden(v) {
			states[v] = hiddenStates
			continue
		}
		j, ok := index[t.Name(v)]
		if !ok {
			return nil, fmt.Errorf("model: the data has no column %q (a variable of the tree)", t.Name(v))
		}
		dv := vars[j]
		if dv.Kind != data.Discrete {
			return nil, fmt.Errorf("model: column %q is continuous; discrete models need discrete data", dv.Name)
		}
		states[v] = len(dv.States)
		labels[v] = append([]string(nil), dv.States...)
	}
	root := model.DefaultRoot(t)
	m, err := New(t, root, states)
	if err != nil {
		return nil, err
	}
	m.Labels = labels
	return m, nil
}
