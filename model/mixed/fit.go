package mixed

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/internal/squarem"
	"github.com/latentree/latentree/tree"
)

// Options configures Fit. The zero value fits two states per discrete
// hidden node, hidden kinds by Layout, by EM to model.DefaultTol.
type Options struct {
	// HiddenStates is the number of states of every discrete hidden node
	// (0: 2); States, when not nil, gives it per node identifier (entries
	// of continuous or observed nodes are ignored).
	HiddenStates int
	States       []int
	// AllDiscreteHidden makes every hidden node discrete (see Layout).
	AllDiscreteHidden bool
	// MaxIter bounds EM iterations (0: model.DefaultMaxIter); Tol is the
	// stopping tolerance on the relative gain in log-likelihood (0:
	// model.DefaultTol).
	MaxIter int
	Tol     float64
	// Restarts is the number of extra random starts (0: none; the
	// moment-based start alone), each run RestartIter iterations (0: 20)
	// before the best continues.
	Restarts    int
	RestartIter int
	// Src is the source of randomness of the random starts (nil: the
	// default seed).
	Src rand.Source
	// Accel selects the acceleration of EM after the restarts (zero:
	// model.AccelSQUAREM; model.AccelNone is plain EM).
	Accel model.Accel
	// Workers is the number of goroutines (0: GOMAXPROCS); results do not
	// depend on it.
	Workers int
	// Progress, if set, is called after every E-step of the final run
	// with the number of E-steps so far and the log-likelihood (the
	// entry just added to EMResult.Trace).
	Progress func(iter int, ll float64)
	// Logger, when not nil, receives progress.
	Logger *slog.Logger
}

// Fit fits a mixed model with structure t to d by EM: kinds of hidden
// nodes and the root by Layout, a moment-based start (see Start), then EM
// (SQUAREM-accelerated unless Accel is model.AccelNone) with missing
// cells marginalised, until the relative gain in log-likelihood of an
// iteration (a SQUAREM cycle) is at most Tol. With Restarts > 0 the
// moment-based start and Restarts random ones each run RestartIter
// iterations first, and the best continues. Discrete observed variables
// get the states (and labels) of their columns. The EMResult's LogLik is
// the returned model's log-likelihood of d, Floored names the nodes whose
// variance the last M-step raised to its floor (see MStep).
func Fit(t *tree.Tree, d *data.Dataset, opt Options) (*Model, *model.EMResult, error) {
	if err := opt.validate(); err != nil {
		return nil, nil, err
	}
	m, err := Prepare(t, d, opt)
	if err != nil {
		return nil, nil, err
	}
	b, err := m.bind(d)
	if err != nil {
		return nil, nil, err
	}
	if err := m.start(b); err != nil {
		return nil, nil, err
	}
	res := &model.EMResult{Rows: b.rows, DistinctRows: b.rows}
	m, err = m.run(b, func() moments { return columnMoments(m, b) }, opt, res)
	if err != nil {
		return nil, nil, err
	}
	return m, res, nil
}

// run runs EM on the rows rs from m's parameters (the start), after
// opt.Restarts random starts drawn with the column moments mom when
// opt.Restarts > 0, and fills res; it returns the fitted model (m, or the
// best start's copy).
func (m *Model) run(rs rowSet, mom func() moments, opt Options, res *model.EMResult) (*Model, error) {
	maxIter, tol := opt.MaxIter, opt.Tol
	if maxIter == 0 {
		maxIter = model.DefaultMaxIter
	}
	if tol == 0 {
		tol = model.DefaultTol
	}
	if opt.Restarts > 0 {
		iters := opt.RestartIter
		if iters == 0 {
			iters = 20
		}
		rng := rand.New(seed.Or(opt.Src, seed.Model))
		mom := mom()
		best, bestLL := (*Model)(nil), math.Inf(-1)
		for s := 0; s <= opt.Restarts; s++ {
			c := m.clone()
			if s > 0 {
				c.randomize(mom, rng)
			}
			run := &model.EMResult{}
			screen := opt
			screen.Progress = nil
			if err := c.em(rs, iters, 0, screen, run); err != nil {
				return nil, err
			}
			res.Starts = append(res.Starts, run.LogLik)
			if run.LogLik > bestLL || best == nil {
				best, bestLL = c, run.LogLik
			}
		}
		m = best
	}
	run := m.em
	if opt.Accel == model.AccelSQUAREM {
		run = m.squarem
	}
	if err := run(rs, maxIter, tol, opt, res); err != nil {
		return nil, err
	}
	if opt.Logger != nil {
		opt.Logger.Info("mixed EM", "iterations", res.Iterations, "converged", res.Converged, "loglik", res.LogLik)
	}
	return m, nil
}

// rowSet is what EM passes over: the bound rows of a dataset held in
// memory (*binding) or a data.Source read block by block (*sourceRows).
type rowSet interface {
	// estepAll returns the expected statistics of every row at the
	// engine's parameters.
	estepAll(e *engine, workers int) (*Expected, error)
}

func (b *binding) estepAll(e *engine, workers int) (*Expected, error) {
	return e.estep(b, workers), nil
}

func (o Options) validate() error {
	switch {
	case o.HiddenStates < 0 || o.HiddenStates > data.MaxStates:
		return fmt.Errorf("mixed: %d hidden states", o.HiddenStates)
	case o.MaxIter < 0:
		return fmt.Errorf("mixed: negative MaxIter %d", o.MaxIter)
	case o.Tol < 0 || math.IsNaN(o.Tol) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("mixed: EM tolerance %g must be positive (0: model.DefaultTol %g)", o.Tol, model.DefaultTol)
	case o.Accel != model.AccelSQUAREM && o.Accel != model.AccelNone:
		return fmt.Errorf("mixed: unknown EM acceleration %d", int(o.Accel))
	case o.Restarts < 0 || o.RestartIter < 0:
		return fmt.Errorf("mixed: negative Restarts %d or RestartIter %d", o.Restarts, o.RestartIter)
	}
	return nil
}

// Prepare returns the model Fit starts from, with neutral parameters:
// hidden kinds and root by Layout (opt.AllDiscreteHidden), opt's states
// for discrete hidden nodes, and each discrete observed variable's states
// and labels from its column of d.
func Prepare(t *tree.Tree, d *data.Dataset, opt Options) (*Model, error) {
	if t == nil {
		return nil, errors.New("mixed: no tree")
	}
	if d == nil {
		return nil, errors.New("mixed: no data")
	}
	return prepareVars(t, d.Vars(), opt)
}

// prepareVars is Prepare for the columns vars.
func prepareVars(t *tree.Tree, vars []data.Variable, opt Options) (*Model, error) {
	names := make([]string, len(vars))
	index := make(map[string]int, len(vars))
	for j, v := range vars {
		names[j], index[v.Name] = v.Name, j
	}
	if err := model.CheckColumns(t, names); err != nil {
		return nil, err
	}
	kind := func(name string) (data.Kind, bool) {
		j, ok := index[name]
		if !ok {
			return 0, false
		}
		return vars[j].Kind, true
	}
	kinds, root, err := Layout(t, kind, opt.AllDiscreteHidden)
	if err != nil {
		return nil, err
	}
	k := opt.HiddenStates
	if k == 0 {
		k = 2
	}
	n := t.MaxID()
	states := make([]int, n)
	labels := make([][]string, n)
	for _, v := range t.Nodes() {
		if kinds[v] != data.Discrete {
			continue
		}
		if !t.IsHidden(v) {
			labels[v] = vars[index[t.Name(v)]].States
			states[v] = len(labels[v])
			continue
		}
		states[v] = k
		if v < len(opt.States) && opt.States[v] > 0 {
			states[v] = opt.States[v]
		}
	}
	m, err := New(t, root, kinds, states)
	if err != nil {
		return nil, err
	}
	for v, l := range labels {
		if l != nil {
			m.Labels[v] = slices.Clone(l)
		}
	}
	return m, nil
}

// em runs plain EM from m's parameters for at most maxIter E-steps,
// stopping when an iteration's relative gain is at most tol (tol 0:
// never), and fills res. m ends with the parameters of the last E-step,
// whose log-likelihood is res.LogLik.
func (m *Model) em(rs rowSet, maxIter int, tol float64, opt Options, res *model.EMResult) error {
	res.Converged = false
	for it := range maxIter {
		x, err := rs.estepAll(newEngine(m), opt.Workers)
		if err != nil {
			return err
		}
		ll := x.LogLik
		if math.IsNaN(ll) {
			return errors.New("mixed: EM reached NaN log-likelihood")
		}
		record(res, ll, opt)
		if it > 0 && tol > 0 {
			prev := res.Trace[it-1]
			if ll-prev <= tol*math.Abs(prev) {
				res.Converged = true
				return nil
			}
		}
		if it == maxIter-1 {
			return nil
		}
		if err := m.mstep(x, res); err != nil {
			return err
		}
	}
	return nil
}

// record adds an E-step's log-likelihood to the trace.
func record(res *model.EMResult, ll float64, opt Options) {
	res.Trace = append(res.Trace, ll)
	res.Iterations, res.LogLik = len(res.Trace), ll
	if opt.Progress != nil {
		opt.Progress(res.Iterations, ll)
	}
	if opt.Logger != nil {
		opt.Logger.Debug("mixed EM", "iteration", res.Iterations, "loglik", ll)
	}
}

// mstep runs MStep and records the floored nodes in res.
func (m *Model) mstep(x *Expected, res *model.EMResult) error {
	floored, err := m.MStep(x)
	if err != nil {
		return err
	}
	res.Floored = res.Floored[:0]
	for _, v := range floored {
		res.Floored = append(res.Floored, m.Tree.Name(v))
	}
	return nil
}

// squarem runs SQUAREM-accelerated EM (model.AccelSQUAREM: SqS3 with
// the step-length control of the discrete and Gaussian families) from m's
// parameters for at most maxIter E-steps, stopping when a cycle's
// relative gain is at most tol, and fills res. Parameters are
// extrapolated as one vector of probabilities, means, log-variances and
// coefficients; the extrapolated point is projected back (every
// probability and variance at least 0.3 times its value at the second EM
// point, rows renormalised, hidden continuous nodes standardised) and
// accepted when its log-likelihood is at least that of the first EM
// point. m ends with the parameters of the last E-step at a cycle
// boundary, whose log-likelihood is res.LogLik.
func (m *Model) squarem(rs rowSet, maxIter int, tol float64, opt Options, res *model.EMResult) error {
	res.Converged = false
	stop := squarem.Stopper{Relative: true, Tol: tol}
	stepMax := 1.0
	estep := func(c *Model) (*Expected, error) {
		x, err := rs.estepAll(newEngine(c), opt.Workers)
		if err != nil {
			return nil, err
		}
		if math.IsNaN(x.LogLik) {
			return nil, errors.New("mixed: EM reached NaN log-likelihood")
		}
		return x, nil
	}
	budget := func() bool { return len(res.Trace) < maxIter }
	x0, err := estep(m)
	if err != nil {
		return err
	}
	record(res, x0.LogLik, opt)
	for {
		if stop.Done(x0.LogLik, 0) {
			res.Converged = true
			return nil
		}
		if !budget() {
			return nil
		}
		// θ1 = M(θ0), θ2 = M(θ1).
		m1 := m.clone()
		if err := m1.mstep(x0, res); err != nil {
			return err
		}
		x1, err := estep(m1)
		if err != nil {
			return err
		}
		record(res, x1.LogLik, opt)
		if !budget() {
			*m = *m1
			return nil
		}
		m2 := m1.clone()
		if err := m2.mstep(x1, res); err != nil {
			return err
		}
		// θ′ = θ2 when α = −1 (then accepted: EM does not decrease
		// the log-likelihood), so that the cap can grow.
		p0, p1, p2 := m.pack(nil), m1.pack(nil), m2.pack(nil)
		alpha := squarem.StepLength(p0, p1, p2, stepMax)
		me := m2.clone()
		if alpha < -1 {
			pe := make([]float64, len(p0))
			squarem.Extrapolate(p0, p1, p2, pe, alpha)
			me.unpack(pe, m2)
		}
		xe, err := estep(me)
		if err != nil {
			return err
		}
		next := m2
		if xe.LogLik >= x1.LogLik && !math.IsInf(xe.LogLik, 0) {
			// Accepted: a stabilising EM step from θ′.
			record(res, xe.LogLik, opt)
			if !budget() {
				*m = *me
				return nil
			}
			next = me.clone()
			if err := next.mstep(xe, res); err != nil {
				return err
			}
			if -alpha >= stepMax {
				stepMax *= squarem.StepGrow
			}
		} else {
			// Rejected: fall back to θ2.
			record(res, x1.LogLik, opt)
			stepMax = max(1, min(stepMax, -alpha)/squarem.StepGrow)
			if !budget() {
				*m = *m1
				return nil
			}
		}
		*m = *next
		if x0, err = estep(m); err != nil {
			return err
		}
		record(res, x0.LogLik, opt)
	}
}

// pack appends m's parameters to dst as one vector: prior and tables,
// then per continuous node its means, log-variances and coefficient.
func (m *Model) pack(dst []float64) []float64 {
	dst = append(dst, m.Prior...)
	for _, v := range m.Rooted().Order {
		if m.Kinds[v] == data.Discrete {
			dst = append(dst, m.CPT[v]...)
			continue
		}
		dst = append(dst, m.Mean[v]...)
		for _, x := range m.Var[v] {
			dst = append(dst, math.Log(x))
		}
		dst = append(dst, m.Coef[v])
	}
	return dst
}

// unpack sets m's parameters from p (laid out by pack), projected onto
// valid parameters: probabilities and variances at least 0.3 times their
// values in ref (and probabilities at least 1e-10), table rows
// renormalised; hidden continuous nodes are then standardised.
func (m *Model) unpack(p []float64, ref *Model) {
	i := 0
	proj := func(dst, ref []float64, k int) {
		for j := range dst {
			dst[j] = max(p[i+j], 0.3*ref[j], 1e-10)
		}
		i += len(dst)
		for a := 0; a < len(dst)/k; a++ {
			s := 0.0
			for _, x := range dst[a*k : (a+1)*k] {
				s += x
			}
			for j := a * k; j < (a+1)*k; j++ {
				dst[j] /= s
			}
		}
	}
	if m.Prior != nil {
		proj(m.Prior, ref.Prior, len(m.Prior))
	}
	for _, v := range m.Rooted().Order {
		if m.Kinds[v] == data.Discrete {
			if m.CPT[v] != nil {
				proj(m.CPT[v], ref.CPT[v], m.States[v])
			}
			continue
		}
		for a := range m.Mean[v] {
			m.Mean[v][a] = p[i]
			i++
		}
		for a := range m.Var[v] {
			m.Var[v][a] = max(math.Exp(p[i]), 0.3*ref.Var[v][a])
			i++
		}
		m.Coef[v] = p[i]
		i++
	}
	m.standardise()
}

// clone returns a copy of m's parameters (sharing the tree).
func (m *Model) clone() *Model {
	c := *m
	c.Kinds, c.States, c.Labels, c.Coef = slices.Clone(m.Kinds), slices.Clone(m.States), slices.Clone(m.Labels), slices.Clone(m.Coef)
	c.Prior = slices.Clone(m.Prior)
	c.CPT, c.Mean, c.Var = make([][]float64, len(m.CPT)), make([][]float64, len(m.Mean)), make([][]float64, len(m.Var))
	for v := range m.CPT {
		c.CPT[v], c.Mean[v], c.Var[v] = slices.Clone(m.CPT[v]), slices.Clone(m.Mean[v]), slices.Clone(m.Var[v])
	}
	c.rooted = nil
	return &c
}

// startMix is the weight of the uniform distribution in the tables of the
// moment-based start, and of a node's marginal variance in its
// conditional variances.
const startMix = 0.1

// Start sets m's parameters to the moment-based start of Fit: every hidden
// node is taken for a noisy copy of its surrogate, the nearest observed
// node (model.Surrogates). A discrete hidden node's state in a row is its
// surrogate's state modulo its number of states, or, for a continuous
// surrogate, the quantile bin of the surrogate's value (equal-frequency
// bins); a continuous hidden node's value is its surrogate's value (or
// state index). One M-step on these completed rows (cells whose
// surrogate is missing left out) gives the parameters; tables are then
// mixed with the uniform distribution and conditional variances raised to
// at least a tenth of the node's marginal variance (weight 0.1 each), so
// that no copy is exact.
func (m *Model) Start(d *data.Dataset) error {
	if err := m.Validate(); err != nil {
		return err
	}
	b, err := m.bind(d)
	if err != nil {
		return err
	}
	return m.start(b)
}

func (m *Model) start(b *binding) error {
	cuts := m.startCuts(func(s int) (vals, w []float64) { return b.vals[s], b.w })
	x := m.NewExpected()
	m.startAdd(b, cuts, x)
	return m.startFinish(x)
}

// startCuts returns, per discrete node with a continuous surrogate, the
// k−1 cuts of its surrogate's equal-frequency quantile bins (see
// surrogateStates), from column(s), the values of observed node s and
// their row weights (nil: 1 each).
func (m *Model) startCuts(column func(s int) (vals, w []float64)) [][]float64 {
	sur := model.Surrogates(m.Tree)
	cuts := make([][]float64, m.Tree.MaxID())
	for _, v := range m.Rooted().Order {
		if s := sur[v]; s >= 0 && m.Kinds[v] == data.Discrete && m.Kinds[s] == data.Continuous {
			vals, w := column(s)
			cuts[v] = quantileCuts(vals, w, m.States[v])
		}
	}
	return cuts
}

// startNeeds reports which observed nodes startCuts reads.
func (m *Model) startNeeds() []bool {
	sur := model.Surrogates(m.Tree)
	need := make([]bool, m.Tree.MaxID())
	for _, v := range m.Rooted().Order {
		if s := sur[v]; s >= 0 && m.Kinds[v] == data.Discrete && m.Kinds[s] == data.Continuous {
			need[s] = true
		}
	}
	return need
}

// startAdd adds to x the statistics of the rows of b completed by the
// surrogates (cuts from startCuts).
func (m *Model) startAdd(b *binding, cuts [][]float64, x *Expected) {
	t := m.Tree
	r := m.Rooted()
	sur := model.Surrogates(t)
	n := t.MaxID()
	// Completed columns: state (−1 missing) or value (NaN missing).
	st := make([][]int, n)
	val := make([][]float64, n)
	for _, v := range r.Order {
		s := sur[v]
		if s < 0 {
			continue
		}
		if m.Kinds[v] == data.Discrete {
			st[v] = surrogateStates(b, s, m.States[v], cuts[v])
		} else {
			val[v] = surrogateValues(b, s)
		}
	}
	for i := 0; i < b.rows; i++ {
		wt := b.wt(i)
		if wt == 0 {
			continue
		}
		for _, v := range r.Order {
			p := r.Parent[v]
			switch {
			case m.Kinds[v] == data.Discrete:
				if st[v] == nil || st[v][i] < 0 {
					continue
				}
				if p < 0 {
					x.Counts[v][st[v][i]] += wt
				} else if st[p] != nil && st[p][i] >= 0 {
					x.Counts[v][st[p][i]*m.States[v]+st[v][i]] += wt
				}
			default:
				if val[v] == nil || math.IsNaN(val[v][i]) {
					continue
				}
				y := val[v][i]
				a := 0
				if p >= 0 && m.Kinds[p] == data.Discrete {
					if st[p] == nil || st[p][i] < 0 {
						continue
					}
					a = st[p][i]
				} else if p >= 0 {
					z := val[p]
					if z == nil || math.IsNaN(z[i]) {
						continue
					}
					x.P1[v] += wt * z[i]
					x.P2[v] += wt * z[i] * z[i]
					x.Cross[v] += wt * y * z[i]
				}
				x.W[v][a] += wt
				x.S1[v][a] += wt * y
				x.S2[v][a] += wt * y * y
			}
		}
	}
}

// startFinish sets m's parameters from the statistics of the completed
// rows (startAdd): one M-step, then the mixing of the tables with the
// uniform distribution and the floor on conditional variances.
func (m *Model) startFinish(x *Expected) error {
	r := m.Rooted()
	if _, err := m.MStep(x); err != nil {
		return err
	}
	_, _, variance := m.marginals()
	for _, v := range r.Order {
		if m.Kinds[v] == data.Discrete {
			tab := m.Prior
			if r.Parent[v] >= 0 {
				tab = m.CPT[v]
			}
			k := float64(m.States[v])
			for i := range tab {
				tab[i] = (1-startMix)*tab[i] + startMix/k
			}
			continue
		}
		for a := range m.Var[v] {
			m.Var[v][a] = max(m.Var[v][a], startMix*variance[v])
		}
	}
	m.standardise()
	return m.Validate()
}

// quantileCuts returns the k−1 cuts of the equal-frequency quantile bins
// of the observed values vals (weights w, nil: 1 each): cut q is the
// value of 0-based position ⌊(q+1)·n/k⌋ of the sorted observed values
// (each repeated by its row's weight).
func quantileCuts(vals, w []float64, k int) []float64 {
	sorted, cum := data.SortedValues(vals, w)
	cut := make([]float64, k-1)
	for q := range cut {
		if len(sorted) > 0 {
			pos := math.Floor(float64(q+1) * cum[len(cum)-1] / float64(k))
			i := sort.Search(len(cum), func(i int) bool { return cum[i] > pos })
			cut[q] = sorted[min(i, len(sorted)-1)]
		}
	}
	return cut
}

// surrogateStates returns, per row, the state in k states of a node seen
// through observed node s: s's state modulo k, or the quantile bin of s's
// value by the cuts (quantileCuts); −1 where s is missing.
func surrogateStates(b *binding, s, k int, cut []float64) []int {
	out := make([]int, b.rows)
	if codes := b.codes[s]; codes != nil {
		for i, c := range codes {
			out[i] = -1
			if c != data.Missing {
				out[i] = int(b.remap[s][c]) % k
			}
		}
		return out
	}
	for i, y := range b.vals[s] {
		out[i] = -1
		if !math.IsNaN(y) {
			s := 0
			for s < len(cut) && y >= cut[s] {
				s++
			}
			out[i] = s
		}
	}
	return out
}

// surrogateValues returns, per row, the value of observed node s (its
// state index for a discrete node; NaN where missing).
func surrogateValues(b *binding, s int) []float64 {
	if vals := b.vals[s]; vals != nil {
		return vals
	}
	out := make([]float64, b.rows)
	for i, c := range b.codes[s] {
		out[i] = math.NaN()
		if c != data.Missing {
			out[i] = float64(b.remap[s][c])
		}
	}
	return out
}

// moments are the sample mean and variance of each continuous column.
type moments struct{ mean, variance []float64 }

func columnMoments(m *Model, b *binding) moments {
	var ms momentSums
	ms.add(m, b)
	return ms.moments(m)
}

// momentSums are the weighted sums of each continuous column's observed
// values and their squares, added up over blocks of rows.
type momentSums struct{ k, s1, s2 []float64 }

func (ms *momentSums) add(m *Model, b *binding) {
	if ms.k == nil {
		n := m.Tree.MaxID()
		ms.k, ms.s1, ms.s2 = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	for v, vals := range b.vals {
		if vals == nil {
			continue
		}
		k, s1, s2 := ms.k[v], ms.s1[v], ms.s2[v]
		for r, y := range vals {
			if w := b.wt(r); !math.IsNaN(y) {
				k, s1, s2 = k+w, s1+w*y, s2+w*y*y
			}
		}
		ms.k[v], ms.s1[v], ms.s2[v] = k, s1, s2
	}
}

func (ms *momentSums) moments(m *Model) moments {
	n := m.Tree.MaxID()
	mom := moments{make([]float64, n), make([]float64, n)}
	for _, v := range m.Tree.Observed() {
		if m.Kinds[v] != data.Continuous {
			continue
		}
		mom.mean[v], mom.variance[v] = 0, 1
		if ms.k == nil {
			continue
		}
		if k, s1, s2 := ms.k[v], ms.s1[v], ms.s2[v]; k > 0 {
			mu := s1 / k
			mom.mean[v] = mu
			if vr := s2/k - mu*mu; vr > 0 {
				mom.variance[v] = vr
			}
		}
	}
	return mom
}

// randomRows fills each row of k entries of p with a random distribution:
// entries uniform on [0.05, 1.05], normalised.
func randomRows(p []float64, k int, rng *rand.Rand) {
	for a := 0; a < len(p)/k; a++ {
		s := 0.0
		for x := range k {
			p[a*k+x] = 0.05 + rng.Float64()
			s += p[a*k+x]
		}
		for x := range k {
			p[a*k+x] /= s
		}
	}
}

// of returns the moments of node v: its column's, or mean 0 and
// variance 1 for a hidden node.
func (mom moments) of(m *Model, v int) (mean, variance float64) {
	if m.Tree.IsHidden(v) {
		return 0, 1
	}
	return mom.mean[v], mom.variance[v]
}

// randomize draws random parameters for a random start: tables with
// entries uniform on [0.05, 1.05] normalised; a continuous observed node's
// means its column's mean plus half a standard deviation times a standard
// normal, variances its column's variance times U(0.3, 1); a continuous
// node under a continuous parent gets a coefficient of random sign and
// size U(0.3, 0.9) as its correlation with the parent (its mean and
// variance kept);
// hidden continuous nodes are then standardised.
func (m *Model) randomize(mom moments, rng *rand.Rand) {
	r := m.Rooted()
	dist := func(p []float64, k int) { randomRows(p, k, rng) }
	for _, v := range r.Order {
		p := r.Parent[v]
		if m.Kinds[v] == data.Discrete {
			if p < 0 {
				dist(m.Prior, m.States[v])
			} else {
				dist(m.CPT[v], m.States[v])
			}
			continue
		}
		mu, vr := mom.of(m, v)
		sd := math.Sqrt(vr)
		if p >= 0 && m.Kinds[p] == data.Continuous {
			// A correlation c with the parent, keeping v's moments.
			c := 0.3 + 0.6*rng.Float64()
			if rng.IntN(2) == 0 {
				c = -c
			}
			mp, vp := mom.of(m, p)
			m.Coef[v] = c * sd / math.Sqrt(vp)
			m.Mean[v][0] = mu - m.Coef[v]*mp
			m.Var[v][0] = vr * (1 - c*c)
			continue
		}
		for a := range m.Mean[v] {
			m.Mean[v][a] = mu + 0.5*sd*rng.NormFloat64()
			m.Var[v][a] = vr * (0.3 + 0.7*rng.Float64())
		}
	}
	m.standardise()
}
