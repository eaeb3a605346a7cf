package discrete

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// BoundaryTol is how close to 0 or 1 a probability is a boundary
// estimate: StandardErrors holds it fixed (its logit, beyond ±13.8, is
// not a free parameter; the likelihood is flat there) and IsBoundary
// flags it.
const BoundaryTol = 1e-6

// IsBoundary reports whether probability p is a boundary estimate: within
// BoundaryTol of 0 or 1.
func IsBoundary(p float64) bool { return p <= BoundaryTol || p >= 1-BoundaryTol }

// Methods of standard errors (StdErrors.Method).
const (
	// SEHessian: the observed information, the exact Hessian of the
	// log-likelihood (StandardErrors).
	SEHessian = "hessian"
	// SEBootstrap: the spread of bootstrap refits (Bootstrap).
	SEBootstrap = "bootstrap"
	// SESandwich: the robust (sandwich) estimator of a fit to rows with
	// sampling weights, H⁻¹ (Σ_i w_i² s_i s_iᵀ) H⁻¹, H the weighted
	// observed information and s_i row i's score (StandardErrors).
	SESandwich = "sandwich"
)

// StdErrors are standard errors of a discrete model's probabilities, laid
// out as the parameters: Prior[b] is that of the root's Prior[b], CPT[v]
// that of CPT[v] entry by entry.
type StdErrors struct {
	// Method is SEHessian, SESandwich or SEBootstrap.
	Method string
	// Replicates is the number of bootstrap replicates (0 for SEHessian).
	Replicates int
	Prior      []float64
	CPT        [][]float64
	// Beta, with a root regression (Model.Regression), holds the
	// standard errors of its coefficients laid out as its Beta (0 for the
	// reference state); nil without one, or after Canonicalize changed
	// the reference state.
	Beta []float64
}

// SEOptions configure StandardErrors.
type SEOptions struct {
	// Workers is the number of goroutines (0: GOMAXPROCS). The result
	// does not depend on it.
	Workers int
}

// StandardErrors returns the standard errors of the model's probabilities
// at its current parameters (a maximum-likelihood fit to d) from the
// observed information: the exact Hessian of the log-likelihood of d, by
// Louis's identity (the expected complete-data information given each row
// minus the covariance of the complete-data score given the row, both
// computed exactly by belief propagation on the tree, with every hidden
// or missing node clamped to each of its states in turn). Rows with
// frequency weights count as their copies (the expanded rows' standard
// errors). With sampling weights w_i the observed information does not
// estimate the estimates' covariance; it is then the sandwich (robust,
// Huber–White) estimator V = H⁻¹ (Σ_i w_i² s_i s_iᵀ) H⁻¹ (Method
// SESandwich), H = Σ_i w_i H_i the weighted observed information and s_i
// row i's score (its expected complete-data score given the row), which
// does not depend on the scale of the weights.
//
// The free parameters are, for each distribution (the root's prior, and
// every row of every CPT), the logits log(p_b/p_ref) of its states
// against its most probable state ref; a boundary probability (IsBoundary)
// is held fixed. The covariance of the logits, the inverse of the
// observed information, is carried to the probabilities by the delta
// method. A boundary estimate's standard error is therefore near 0: flag
// it (IsBoundary) rather than read it. An information matrix that is not
// positive definite (a model not locally identified at these parameters,
// such as a hidden state of no weight) is an error.
//
// The cost is, per distinct row, one propagation per state of every
// hidden or missing node and a pass over the P×P information matrix, P
// the number of free parameters.
func (m *Model) StandardErrors(d *data.Dataset, opt SEOptions) (*StdErrors, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	sandwich := d != nil && d.Weighted() && d.WeightKind() == data.Sampling
	b0, err := m.bind(d)
	if err != nil {
		return nil, err
	}
	if b0.rows == 0 {
		return nil, errors.New("model: no rows for standard errors")
	}
	if m.Regression != nil {
		return m.regressionSE(b0, opt, sandwich)
	}
	b := b0
	if !sandwich {
		// (The sandwich needs Σ w_i² per distinct row: rows not merged.)
		b = b0.compress()
	}
	ps := newParamSet(m)
	ps.sandwich = sandwich
	info, meat, err := ps.information(b, model.Workers(opt.Workers))
	if err != nil {
		return nil, err
	}
	cov, err := invertInformation(info, ps)
	if err != nil {
		return nil, err
	}
	if sandwich {
		cov = sandwichCov(cov, meat)
	}
	se := ps.delta(cov)
	if sandwich {
		se.Method = SESandwich
	}
	return se, nil
}

// sandwichCov returns bread·meat·bread, meat P×P row-major.
func sandwichCov(bread *mat.SymDense, meat []float64) *mat.SymDense {
	P, _ := bread.Dims()
	if P == 0 {
		return bread
	}
	var left, v mat.Dense
	left.Mul(bread, mat.NewDense(P, P, meat))
	v.Mul(&left, bread)
	out := mat.NewSymDense(P, nil)
	for i := 0; i < P; i++ {
		for j := i; j < P; j++ {
			out.SetSym(i, j, (v.At(i, j)+v.At(j, i))/2)
		}
	}
	return out
}

// paramRow is one distribution of the model: the prior (v the root, a 0)
// or row a of CPT[v]; free[b] is the index of state b's logit among the
// free parameters, or −1 (the reference state and boundary states).
type paramRow struct {
	v, a  int
	theta []float64
	free  []int
}

// paramSet indexes a model's free parameters (see StandardErrors).
type paramSet struct {
	m     *Model
	r     *tree.Rooted
	rows  []paramRow
	byRow [][]int // node → its paramRow indices by parent state
	start []int   // node → index of its first free parameter
	end   []int   // node → one past its last
	n     int
	// tin, tout: a depth-first numbering, so that w is in v's subtree
	// exactly when tin[v] ≤ tin[w] < tout[v].
	tin, tout []int
	// reg: the model has a root regression, whose coefficients replace
	// the root's logits; full is then the number of free parameters
	// (the coefficients, then the CPTs' logits), and design its
	// design's columns (regressionSE).
	reg        bool
	full, ncol int
	// sandwich: information also returns Σ_r w_r² s_r s_rᵀ (the
	// sandwich estimator's meat), s_r row r's score.
	sandwich bool
}

func newParamSet(m *Model) *paramSet {
	r := m.Rooted()
	nid := m.Tree.MaxID()
	ps := &paramSet{m: m, r: r, byRow: make([][]int, nid), start: make([]int, nid), end: make([]int, nid), tin: make([]int, nid), tout: make([]int, nid)}
	for _, v := range r.Order {
		ps.start[v] = ps.n
		k := m.States[v]
		nrow := 1
		if v != m.Root {
			nrow = m.States[r.Parent[v]]
		}
		for a := 0; a < nrow; a++ {
			theta := m.Prior
			if v != m.Root {
				theta = m.CPT[v][a*k : (a+1)*k]
			}
			ref := 0
			reg := v == m.Root && m.Regression != nil
			for s, p := range theta {
				if p > theta[ref] && !reg {
					ref = s
				}
			}
			free := make([]int, k)
			for s, p := range theta {
				free[s] = -1
				// (With a root regression the root's logits against
				// state 0 are the rows' linear predictors: all free.)
				if s != ref && (reg || !IsBoundary(p)) {
					free[s] = ps.n
					ps.n++
				}
			}
			ps.byRow[v] = append(ps.byRow[v], len(ps.rows))
			ps.rows = append(ps.rows, paramRow{v: v, a: a, theta: theta, free: free})
		}
		ps.end[v] = ps.n
	}
	// Depth-first numbering.
	clock := 0
	var visit func(v int)
	visit = func(v int) {
		ps.tin[v] = clock
		clock++
		for _, c := range r.Children[v] {
			visit(c)
		}
		ps.tout[v] = clock
	}
	visit(m.Root)
	return ps
}

// rowState is one worker's buffers for the information of a block of
// rows.
type rowState struct {
	bp   *rowBP
	ev   [][]float64
	post [][]float64
	q    [][]float64
	// es is E[S | row]; cond[v][s] is E[S | row, v = s] (nil when
	// P(v = s | row) = 0).
	es   []float64
	cond [][][]float64
	// scratch posteriors for the clamped propagations
	cpost, cq [][]float64
	info      []float64 // P×P, row-major
	// evBuf[v]: node v's evidence vector; random[v]: v is hidden or
	// missing in the row.
	evBuf  [][]float64
	random []bool
	// rootTheta, when not nil, is the row's prior of the root (a root
	// regression's) in place of the model's Prior; row is then the row's
	// own information (regressionSE).
	rootTheta []float64
	row       []float64
	// meat, when not nil, accumulates w_r² s_r s_rᵀ (ps.sandwich), in
	// the parameters of info.
	meat []float64
	// score: a row's score in the full parameters (a root regression's).
	score []float64
}

// theta returns the probabilities of distribution pr in the current row.
func (s *rowState) theta(pr *paramRow, root int) []float64 {
	if pr.v == root && s.rootTheta != nil {
		return s.rootTheta
	}
	return pr.theta
}

// information returns the observed information (minus the Hessian of the
// log-likelihood in the free logits), P×P row-major; with a root
// regression, in the coefficients and the CPTs' logits (ps.full
// parameters). With ps.sandwich it also returns the sum of the rows'
// w_r² s_r s_rᵀ in the same parameters (else nil).
func (ps *paramSet) information(b *binding, workers int) ([]float64, []float64, error) {
	P := ps.n
	// Fixed chunks of rows, summed in order: the result does not depend
	// on the number of workers.
	const chunks = 8
	nc := min(chunks, b.rows)
	acc, meats := make([][]float64, nc), make([][]float64, nc)
	var firstErr error
	errs := make([]error, nc)
	parallel.ForState(workers, nc, func() *rowState { return ps.newRowState() }, func(s *rowState, c int) {
		s.info = make([]float64, P*P)
		if ps.reg {
			s.row, s.info = s.info, make([]float64, ps.full*ps.full)
		}
		if ps.sandwich {
			s.meat = make([]float64, len(s.info))
			if ps.reg {
				s.score = make([]float64, ps.full)
			}
		}
		lo, hi := c*b.rows/nc, (c+1)*b.rows/nc
		for r := lo; r < hi; r++ {
			if err := ps.addRowAny(s, b, r); err != nil {
				errs[c] = err
				return
			}
		}
		acc[c], meats[c] = s.info, s.meat
	})
	for _, err := range errs {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, nil, firstErr
	}
	return sumChunks(acc), sumChunks(meats), nil
}

// sumChunks returns the sum of the chunks' matrices, in order, into the
// first (nil for nil chunks).
func sumChunks(acc [][]float64) []float64 {
	out := acc[0]
	for _, a := range acc[1:] {
		for i, x := range a {
			out[i] += x
		}
	}
	return out
}

func (ps *paramSet) newRowState() *rowState {
	m := ps.m
	nid := m.Tree.MaxID()
	s := &rowState{bp: newRowBP(m), ev: make([][]float64, nid), post: make([][]float64, nid), q: make([][]float64, nid),
		es: make([]float64, ps.n), cond: make([][][]float64, nid), cpost: make([][]float64, nid), cq: make([][]float64, nid),
		evBuf: make([][]float64, nid), random: make([]bool, nid)}
	for _, v := range ps.r.Order {
		k := m.States[v]
		s.evBuf[v] = make([]float64, k)
		s.post[v], s.cpost[v] = make([]float64, k), make([]float64, k)
		if p := ps.r.Parent[v]; p >= 0 {
			s.q[v], s.cq[v] = make([]float64, m.States[p]*k), make([]float64, m.States[p]*k)
		}
		s.cond[v] = make([][]float64, k)
		for x := range s.cond[v] {
			s.cond[v][x] = make([]float64, ps.n)
		}
	}
	return s
}

// expectedScore writes E[S | evidence] into dst from node and edge
// posteriors: for the logit of state c in row a of v's distribution,
// P(parent = a, v = c) − p_c P(parent = a).
func (ps *paramSet) expectedScore(s *rowState, dst []float64, post, q [][]float64) {
	m := ps.m
	for i := range ps.rows {
		pr := &ps.rows[i]
		k := m.States[pr.v]
		if pr.v == m.Root {
			theta := s.theta(pr, m.Root)
			for c, j := range pr.free {
				if j >= 0 {
					dst[j] = post[pr.v][c] - theta[c]
				}
			}
			continue
		}
		qa := q[pr.v][pr.a*k : (pr.a+1)*k]
		pa := 0.0
		for _, x := range qa {
			pa += x
		}
		for c, j := range pr.free {
			if j >= 0 {
				dst[j] = qa[c] - pr.theta[c]*pa
			}
		}
	}
}

// addRow adds row r's weighted contribution to s.info: E[complete
// information | row] − Cov[complete score | row].
func (ps *paramSet) addRow(s *rowState, b *binding, r int) error {
	m := ps.m
	w := b.w(r)
	if w == 0 {
		return nil
	}
	random := s.random
	for _, v := range ps.r.Order {
		s.ev[v], random[v] = nil, false
		if codes := b.codes[v]; codes != nil {
			if c := codes[r]; c != data.Missing {
				e := s.evBuf[v]
				clear(e)
				e[b.remap[v][c]] = 1
				s.ev[v] = e
				continue
			}
		}
		random[v] = true
	}
	if !s.bp.run(s.ev, s.post, s.q) {
		return fmt.Errorf("model: row %d has probability 0 under the model: no standard errors", r+1)
	}
	ps.expectedScore(s, s.es, s.post, s.q)
	// E[S | row, v = x] for every node and state of positive posterior.
	for _, v := range ps.r.Order {
		for x := range s.cond[v] {
			cv := s.cond[v][x]
			switch {
			case s.post[v][x] <= 0:
				// Weight 0 (or below the smallest float64, where a
				// product of messages underflows): no contribution.
				clear(cv)
			case !random[v]:
				copy(cv, s.es)
			default:
				// (v is random: it has no evidence of its own.)
				e := s.evBuf[v]
				clear(e)
				e[x] = 1
				s.ev[v] = e
				ok := s.bp.run(s.ev, s.cpost, s.cq)
				s.ev[v] = nil
				if !ok {
					return fmt.Errorf("model: row %d: propagation failed", r+1)
				}
				ps.expectedScore(s, cv, s.cpost, s.cq)
			}
		}
	}
	P := ps.n
	info := s.info
	// +E[S]E[S]ᵀ (minus the covariance's second term).
	for i, x := range s.es {
		if x == 0 {
			continue
		}
		row := info[i*P : (i+1)*P]
		for j, y := range s.es {
			row[j] += w * x * y
		}
	}
	if s.meat != nil && !ps.reg {
		addOuter(s.meat, s.es, w*w)
	}
	for _, v := range ps.r.Order {
		k := m.States[v]
		root := v == m.Root
		for _, ri := range ps.byRow[v] {
			pr := ps.rows[ri]
			theta := s.theta(&pr, m.Root)
			a := pr.a
			// Joint posterior of (parent = a, v = x) for x = 0..k−1.
			var qa []float64
			if root {
				qa = s.post[v]
			} else {
				qa = s.q[v][a*k : (a+1)*k]
			}
			pa := 0.0
			for _, x := range qa {
				pa += x
			}
			// Complete information and the same-distribution part of
			// E[SSᵀ]: Σ_x q(x) (δ_xc − p_c)(δ_xd − p_d) = pa p_c p_d −
			// p_c q_d − p_d q_c + δ_cd q_c; minus p_a (δ_cd p_c − p_c p_d).
			for c, i := range pr.free {
				if i < 0 {
					continue
				}
				for d, j := range pr.free {
					if j < 0 {
						continue
					}
					tc, td := theta[c], theta[d]
					ess := pa*tc*td - tc*qa[d] - td*qa[c]
					comp := -pa * tc * td
					if c == d {
						ess += qa[c]
						comp += pa * tc
					}
					info[i*P+j] += w * (comp - ess)
				}
			}
			// Cross terms E[g_v g_wᵀ] for w ≠ v: Σ_x q(x) g_v(a, x) ⊗
			// E[g_w | parent = a, v = x].
			for x, qx := range qa {
				if qx <= 0 {
					continue
				}
				below := s.cond[v][x] // nodes in v's subtree
				var above []float64   // the others: given the parent
				if !root {
					above = s.cond[ps.r.Parent[v]][a]
				}
				for c, i := range pr.free {
					if i < 0 {
						continue
					}
					g := -theta[c]
					if c == x {
						g++
					}
					f := w * qx * g
					row := info[i*P : (i+1)*P]
					for _, u := range ps.r.Order {
						if u == v || ps.start[u] == ps.end[u] {
							continue
						}
						src := below
						if !ps.inSubtree(v, u) {
							src = above
						}
						for j := ps.start[u]; j < ps.end[u]; j++ {
							row[j] -= f * src[j]
						}
					}
				}
			}
		}
	}
	return nil
}

// addOuter adds c·x xᵀ to dst, len(x)² row-major.
func addOuter(dst, x []float64, c float64) {
	n := len(x)
	for i, a := range x {
		if a == 0 {
			continue
		}
		row := dst[i*n : (i+1)*n]
		for j, y := range x {
			row[j] += c * a * y
		}
	}
}

func (ps *paramSet) inSubtree(v, u int) bool { return ps.tin[v] <= ps.tin[u] && ps.tin[u] < ps.tout[v] }

// invertInformation returns the inverse of the symmetrised information,
// or an error naming a distribution whose parameters it does not
// determine.
func invertInformation(info []float64, ps *paramSet) (*mat.SymDense, error) {
	P := ps.n
	if P == 0 {
		return mat.NewSymDense(0, nil), nil
	}
	sym := mat.NewSymDense(P, nil)
	for i := 0; i < P; i++ {
		for j := i; j < P; j++ {
			x := (info[i*P+j] + info[j*P+i]) / 2
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("model: the observed information is not finite (%g) at %s", x, ps.describe(ps.rows[ps.rowOf(i)]))
			}
			sym.SetSym(i, j, x)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		// Name the first distribution with a non-positive diagonal.
		for _, pr := range ps.rows {
			for _, j := range pr.free {
				if j >= 0 && !(sym.At(j, j) > 0) {
					return nil, fmt.Errorf("model: the observed information is singular at %s: the data do not determine it (no standard errors)", ps.describe(pr))
				}
			}
		}
		return nil, errors.New("model: the observed information is not positive definite: the model is not locally identified at these parameters (no standard errors)")
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		return nil, fmt.Errorf("model: inverting the observed information: %w", err)
	}
	return &cov, nil
}

// rowOf returns the index of the distribution of free parameter j.
func (ps *paramSet) rowOf(j int) int {
	for i, pr := range ps.rows {
		for _, f := range pr.free {
			if f == j {
				return i
			}
		}
	}
	return 0
}

func (ps *paramSet) describe(pr paramRow) string {
	t := ps.m.Tree
	if pr.v == ps.m.Root {
		return "the prior of " + t.Name(pr.v)
	}
	return fmt.Sprintf("the distribution of %s given %s = %d", t.Name(pr.v), t.Name(ps.r.Parent[pr.v]), pr.a)
}

// delta carries the logits' covariance to standard errors of the
// probabilities: ∂p_b/∂η_c = p_b(δ_bc − p_c) over the row's free logits.
func (ps *paramSet) delta(cov *mat.SymDense) *StdErrors {
	m := ps.m
	se := &StdErrors{Method: SEHessian, CPT: make([][]float64, len(m.CPT))}
	for _, pr := range ps.rows {
		k := m.States[pr.v]
		var dst []float64
		if pr.v == m.Root {
			se.Prior = make([]float64, k)
			dst = se.Prior
		} else {
			if se.CPT[pr.v] == nil {
				se.CPT[pr.v] = make([]float64, len(m.CPT[pr.v]))
			}
			dst = se.CPT[pr.v][pr.a*k : (pr.a+1)*k]
		}
		for bs := 0; bs < k; bs++ {
			v := 0.0
			for c, i := range pr.free {
				if i < 0 {
					continue
				}
				jc := pr.theta[bs] * (kron(bs, c) - pr.theta[c])
				for d, j := range pr.free {
					if j < 0 {
						continue
					}
					jd := pr.theta[bs] * (kron(bs, d) - pr.theta[d])
					v += jc * jd * cov.At(i, j)
				}
			}
			dst[bs] = math.Sqrt(math.Max(v, 0))
		}
	}
	return se
}

func kron(a, b int) float64 {
	if a == b {
		return 1
	}
	return 0
}

// rowBP is belief propagation on one row: exact node and edge posteriors
// given evidence vectors.
type rowBP struct {
	m           *Model
	r           *tree.Rooted
	lam, up, pi [][]float64
	out         []float64
	// prior, when not nil, replaces the model's Prior (a row's prior
	// under a root regression).
	prior []float64
}

func newRowBP(m *Model) *rowBP {
	r := m.Rooted()
	nid := m.Tree.MaxID()
	bp := &rowBP{m: m, r: r, lam: make([][]float64, nid), up: make([][]float64, nid), pi: make([][]float64, nid)}
	maxK := 1
	for _, v := range r.Order {
		bp.lam[v] = make([]float64, m.States[v])
		bp.pi[v] = make([]float64, m.States[v])
		maxK = max(maxK, m.States[v])
		if p := r.Parent[v]; p >= 0 {
			bp.up[v] = make([]float64, m.States[p])
		}
	}
	bp.out = make([]float64, maxK)
	return bp
}

// run computes post[v] = P(v | evidence) and, for v other than the root,
// q[v][a*k+b] = P(parent = a, v = b | evidence), where ev[v] (nil: no
// evidence) weights v's states. It returns false when the evidence has
// probability 0.
func (bp *rowBP) run(ev, post, q [][]float64) bool {
	m, r := bp.m, bp.r
	for x := len(r.Order) - 1; x >= 0; x-- {
		v := r.Order[x]
		k := m.States[v]
		lam := bp.lam[v]
		for s := range lam {
			lam[s] = 1
			if ev[v] != nil {
				lam[s] = ev[v][s]
			}
		}
		for _, c := range r.Children[v] {
			for s := range lam {
				lam[s] *= bp.up[c][s]
			}
		}
		if !normalize(lam) {
			return false
		}
		if p := r.Parent[v]; p >= 0 {
			cpt := m.CPT[v]
			for a := range bp.up[v] {
				u := 0.0
				for s, l := range lam {
					u += cpt[a*k+s] * l
				}
				bp.up[v][a] = u
			}
		}
	}
	// Downward: post[root] ∝ prior·λ; for a child c of v the message from
	// v's side is post[v]/up[c] (computed without dividing by 0 as the
	// product of v's prior-side message, evidence and the other children).
	root := m.Root
	prior := m.Prior
	if bp.prior != nil {
		prior = bp.prior
	}
	for s := range post[root] {
		post[root][s] = prior[s] * bp.lam[root][s]
	}
	if !normalize(post[root]) {
		return false
	}
	// pi[v]: the message into v from its parent side (prior at the root).
	pi := bp.pi
	copy(pi[root], prior)
	for _, v := range r.Order {
		kv := m.States[v]
		for _, c := range r.Children[v] {
			out := bp.out[:kv]
			for a := range out {
				o := pi[v][a]
				if ev[v] != nil {
					o *= ev[v][a]
				}
				for _, c2 := range r.Children[v] {
					if c2 != c {
						o *= bp.up[c2][a]
					}
				}
				out[a] = o
			}
			if !normalize(out) {
				return false
			}
			k := m.States[c]
			cpt := m.CPT[c]
			qc := q[c]
			pc := pi[c]
			clear(pc)
			for a, o := range out {
				for s := 0; s < k; s++ {
					x := o * cpt[a*k+s]
					pc[s] += x
					qc[a*k+s] = x * bp.lam[c][s]
				}
			}
			if !normalize(qc) {
				return false
			}
			ps := post[c]
			for s := range ps {
				ps[s] = 0
			}
			for a := 0; a < kv; a++ {
				for s := 0; s < k; s++ {
					ps[s] += qc[a*k+s]
				}
			}
		}
	}
	return true
}

// normalize scales p to sum 1, reporting false when its sum is not
// positive and finite.
func normalize(p []float64) bool {
	s := 0.0
	for _, x := range p {
		s += x
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return false
	}
	for i := range p {
		p[i] /= s
	}
	return true
}
