package discrete

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
)

// Covariate is a column of the data that predicts the root's state
// (RootRegression): continuous (States nil) or categorical.
type Covariate struct {
	Name string
	// States are the labels of a categorical covariate (nil: continuous).
	// It enters the regression by dummy coding: one term per state after
	// the first, the reference.
	States []string
}

// RootRegression is a multinomial logit of the root's state on
// covariates, the latent class model with covariates of poLCA's formula:
// for a row with covariates x,
//
//	P(root = k | x) = exp(β_k·[1, x]) / Σ_j exp(β_j·[1, x]),  β_0 = 0,
//
// where [1, x] is the row's design: an intercept and one term per
// continuous covariate and per non-reference state of each categorical
// one (Terms). Continuous covariates enter on their own scale (no
// standardisation): β_kj is the change in the log-odds of state k against
// state 0 per unit of covariate j, exp(β_kj) its odds ratio. The rest of
// the model (the tree's CPTs) does not depend on the covariates.
type RootRegression struct {
	Covariates []Covariate
	// Beta holds the coefficients, one row of 1+NumTerms per state of the
	// root (row-major; row 0, the reference state, is all 0). Their
	// standard errors are the model's (StdErrors.Beta).
	Beta []float64
}

// NewRootRegression returns the regression of a root with k states on
// the named columns of d, with all coefficients 0: a discrete column
// becomes a categorical covariate with d's state labels, a continuous one
// a continuous covariate.
func NewRootRegression(d *data.Dataset, names []string, k int) (*RootRegression, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	if len(names) == 0 {
		return nil, errors.New("model: no covariates named")
	}
	if k < 1 {
		return nil, fmt.Errorf("model: the root has %d states", k)
	}
	r := &RootRegression{}
	for i, name := range names {
		if slices.Contains(names[:i], name) {
			return nil, fmt.Errorf("model: covariate %q named twice", name)
		}
		j, ok := d.Index(name)
		if !ok {
			return nil, fmt.Errorf("model: the data has no covariate column %q", name)
		}
		c := Covariate{Name: name}
		if v := d.Var(j); v.Kind == data.Discrete {
			if len(v.States) < 1 {
				return nil, fmt.Errorf("model: categorical covariate %q has no states", name)
			}
			c.States = append([]string(nil), v.States...)
		}
		r.Covariates = append(r.Covariates, c)
	}
	r.Beta = make([]float64, k*(1+r.NumTerms()))
	return r, nil
}

// NumTerms is the number of terms of the design besides the intercept.
func (r *RootRegression) NumTerms() int {
	n := 0
	for _, c := range r.Covariates {
		if c.States == nil {
			n++
		} else {
			n += len(c.States) - 1
		}
	}
	return n
}

// Terms returns the names of the design's columns: "(intercept)", then a
// continuous covariate's name, or "name=state" for each non-reference
// state of a categorical one.
func (r *RootRegression) Terms() []string {
	out := []string{"(intercept)"}
	for _, c := range r.Covariates {
		if c.States == nil {
			out = append(out, c.Name)
			continue
		}
		for _, s := range c.States[1:] {
			out = append(out, c.Name+"="+s)
		}
	}
	return out
}

// Names returns the covariates' column names.
func (r *RootRegression) Names() []string {
	out := make([]string, len(r.Covariates))
	for i, c := range r.Covariates {
		out[i] = c.Name
	}
	return out
}

// Clone returns a deep copy.
func (r *RootRegression) Clone() *RootRegression {
	if r == nil {
		return nil
	}
	c := &RootRegression{Beta: slices.Clone(r.Beta)}
	for _, x := range r.Covariates {
		c.Covariates = append(c.Covariates, Covariate{Name: x.Name, States: slices.Clone(x.States)})
	}
	return c
}

// validate checks the coefficients' layout for a root with k states.
func (r *RootRegression) validate(k int) error {
	p := 1 + r.NumTerms()
	if len(r.Covariates) == 0 {
		return errors.New("model: a root regression without covariates")
	}
	for _, c := range r.Covariates {
		if c.States != nil && len(c.States) < 1 {
			return fmt.Errorf("model: categorical covariate %q has no states", c.Name)
		}
	}
	if len(r.Beta) != k*p {
		return fmt.Errorf("model: the root regression has %d coefficients, want %d×%d", len(r.Beta), k, p)
	}
	for i, b := range r.Beta {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return fmt.Errorf("model: the root regression's coefficient %d is %g", i, b)
		}
		if i < p && b != 0 {
			return errors.New("model: the root regression's first state (the reference) must have coefficients 0")
		}
	}
	return nil
}

// Design returns the design of d's rows, rows × (1+NumTerms) row-major:
// an intercept of 1, each continuous covariate's value and each
// categorical covariate's dummies. A covariate column that d lacks, is of
// the other kind, has a missing cell or a state the regression does not
// know is an error naming it (and the row, counted from 1): rows with a
// missing covariate are not dropped.
func (r *RootRegression) Design(d *data.Dataset) ([]float64, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	p := 1 + r.NumTerms()
	n := d.NumRows()
	x := make([]float64, n*p)
	for i := 0; i < n; i++ {
		x[i*p] = 1
	}
	off := 1
	for _, c := range r.Covariates {
		j, ok := d.Index(c.Name)
		if !ok {
			return nil, fmt.Errorf("model: the data has no column %q (a covariate of the model)", c.Name)
		}
		v := d.Var(j)
		if c.States == nil {
			if v.Kind != data.Continuous {
				return nil, fmt.Errorf("model: covariate %q is continuous in the model but discrete in the data", c.Name)
			}
			for i, y := range d.Continuous(j) {
				if math.IsNaN(y) {
					return nil, fmt.Errorf("model: covariate %q is missing in row %d (rows with missing covariates are not fitted: fill or drop them)", c.Name, i+1)
				}
				x[i*p+off] = y
			}
			off++
			continue
		}
		if v.Kind != data.Discrete {
			return nil, fmt.Errorf("model: covariate %q is categorical in the model but continuous in the data", c.Name)
		}
		// The data's codes mapped to the model's states.
		remap := make([]int, len(v.States))
		for a, l := range v.States {
			remap[a] = slices.Index(c.States, l)
		}
		for i, code := range d.Discrete(j) {
			if code == data.Missing {
				return nil, fmt.Errorf("model: covariate %q is missing in row %d (rows with missing covariates are not fitted: fill or drop them)", c.Name, i+1)
			}
			s := remap[code]
			if s < 0 {
				return nil, fmt.Errorf("model: covariate %q has state %q in row %d, not one of the model's %q", c.Name, v.States[code], i+1, c.States)
			}
			if s > 0 {
				x[i*p+off+s-1] = 1
			}
		}
		off += len(c.States) - 1
	}
	return x, nil
}

// priors returns each row's prior of the root, rows × k, for the design
// x: the softmax of the linear predictors, computed stably.
func (r *RootRegression) priors(x []float64, k int) []float64 {
	p := 1 + r.NumTerms()
	n := len(x) / p
	out := make([]float64, n*k)
	for i := 0; i < n; i++ {
		softmaxRow(out[i*k:(i+1)*k], r.Beta, x[i*p:(i+1)*p])
	}
	return out
}

// softmaxRow sets dst[s] = exp(β_s·xi) / Σ_j exp(β_j·xi).
func softmaxRow(dst, beta, xi []float64) {
	lse := logSoftmaxRow(dst, beta, xi)
	for s, eta := range dst {
		dst[s] = math.Exp(eta - lse)
	}
}

// meanPrior returns the weighted mean of the rows' priors: the root's
// model-estimated state shares, which the model keeps as its Prior.
func meanPrior(pri []float64, b *binding, k int) []float64 {
	out := make([]float64, k)
	tot := 0.0
	for i := 0; i < b.rows; i++ {
		w := b.w(i)
		tot += w
		for s := 0; s < k; s++ {
			out[s] += w * pri[i*k+s]
		}
	}
	if tot > 0 {
		for s := range out {
			out[s] /= tot
		}
	}
	return out
}

// Newton's method for the regression's M-step.
const (
	newtonMaxIter = 100
	newtonTol     = 1e-10
	// separationEta bounds the linear predictors' spread: a row whose
	// log-odds of two states differ by more (a probability below about
	// 1e-26) means the classes are separated by the covariates, and the
	// coefficients would grow without bound.
	separationEta = 60
)

// mstepRegression maximises Σ_i w_i Σ_s post_is log P(root = s | x_i) over
// β by Newton's method (iteratively reweighted least squares) from the
// current β, halving a step that does not increase the objective, until
// the Newton decrement (the predicted gain) is below newtonTol relatively.
// post and x are rows × k and rows × p.
func (r *RootRegression) mstepRegression(x, post []float64, b *binding, k int) error {
	p := 1 + r.NumTerms()
	nf := (k - 1) * p
	if nf == 0 {
		return nil
	}
	nr := newtonPass{grad: make([]float64, nf), hess: mat.NewSymDense(nf, nil), pi: make([]float64, k)}
	trial := newtonPass{grad: make([]float64, nf), hess: mat.NewSymDense(nf, nil), pi: make([]float64, k)}
	nr.run(r.Beta, x, post, b, k)
	beta := slices.Clone(r.Beta)
	for it := 0; it < newtonMaxIter; it++ {
		var ch mat.Cholesky
		var step mat.VecDense
		if !ch.Factorize(nr.hess) || ch.SolveVecTo(&step, mat.NewVecDense(nf, nr.grad)) != nil {
			// (SolveVecTo fails on a condition number beyond 1e16.)
			return errSingularDesign
		}
		dec := mat.Dot(&step, mat.NewVecDense(nf, nr.grad))
		if !(dec > newtonTol*(1+math.Abs(nr.obj))) {
			break
		}
		t, ok := 1.0, false
		for halvings := 0; halvings <= 30; halvings++ {
			for i := 0; i < nf; i++ {
				beta[p+i] = r.Beta[p+i] + t*step.AtVec(i)
			}
			trial.run(beta, x, post, b, k)
			if trial.obj >= nr.obj {
				ok = true
				break
			}
			t /= 2
		}
		if !ok {
			break // no ascent left: at the maximum up to rounding
		}
		copy(r.Beta, beta)
		nr, trial = trial, nr
	}
	return r.checkSeparation(x, k)
}

var errSingularDesign = errors.New("model: the covariates' design is singular (a constant covariate, collinear covariates, or a category of a categorical covariate never seen): the root regression is not identified")

// newtonPass holds the objective of mstepRegression at some β, its
// gradient in the free coefficients (states 1.., all terms) and minus its
// Hessian (upper triangle).
type newtonPass struct {
	obj  float64
	grad []float64
	hess *mat.SymDense
	pi   []float64
}

func (n *newtonPass) run(beta, x, post []float64, b *binding, k int) {
	nf := len(n.grad)
	p := nf / (k - 1)
	clear(n.grad)
	n.hess.Zero()
	n.obj = 0
	h := n.hess.RawSymmetric().Data
	pi := n.pi
	for i := 0; i < b.rows; i++ {
		w := b.w(i)
		if w == 0 {
			continue
		}
		xi := x[i*p : (i+1)*p]
		lse := logSoftmaxRow(pi, beta, xi)
		for c := 0; c < k; c++ {
			if q := post[i*k+c]; q > 0 {
				n.obj += w * q * (pi[c] - lse)
			}
		}
		for c := range pi {
			pi[c] = math.Exp(pi[c] - lse)
		}
		for c := 1; c < k; c++ {
			g := w * (post[i*k+c] - pi[c])
			for j, xj := range xi {
				n.grad[(c-1)*p+j] += g * xj
			}
			for d := c; d < k; d++ {
				v := pi[c] * (kron(c, d) - pi[d]) * w
				for j, xj := range xi {
					a := (c-1)*p + j
					row := h[a*nf : (a+1)*nf]
					l0 := 0
					if d == c {
						l0 = j
					}
					for l := l0; l < p; l++ {
						row[(d-1)*p+l] += v * xj * xi[l]
					}
				}
			}
		}
	}
}

// logSoftmaxRow sets dst[s] to the linear predictor β_s·xi and returns
// log Σ_s exp(dst[s]), computed stably.
func logSoftmaxRow(dst, beta, xi []float64) float64 {
	p := len(xi)
	mx := math.Inf(-1)
	for s := range dst {
		eta := 0.0
		for j, xj := range xi {
			eta += beta[s*p+j] * xj
		}
		dst[s] = eta
		mx = math.Max(mx, eta)
	}
	sum := 0.0
	for _, eta := range dst {
		sum += math.Exp(eta - mx)
	}
	return mx + math.Log(sum)
}

// checkSeparation reports coefficients that separate the root's states:
// a row whose linear predictors differ by more than separationEta,
// naming the term of largest standardised coefficient.
func (r *RootRegression) checkSeparation(x []float64, k int) error {
	p := 1 + r.NumTerms()
	n := len(x) / p
	worst := 0.0
	for i := 0; i < n; i++ {
		lo, hi := 0.0, 0.0 // state 0's predictor is 0
		for c := 1; c < k; c++ {
			eta := 0.0
			for j := 0; j < p; j++ {
				eta += r.Beta[c*p+j] * x[i*p+j]
			}
			lo, hi = min(lo, eta), max(hi, eta)
		}
		worst = max(worst, hi-lo)
	}
	if worst <= separationEta {
		return nil
	}
	// The term with the largest coefficient times its spread.
	terms := r.Terms()
	best, bestJ := -1.0, 0
	for j := 1; j < p; j++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < n; i++ {
			lo, hi = min(lo, x[i*p+j]), max(hi, x[i*p+j])
		}
		for c := 1; c < k; c++ {
			if s := math.Abs(r.Beta[c*p+j]) * (hi - lo); s > best {
				best, bestJ = s, j
			}
		}
	}
	if bestJ == 0 {
		return errors.New("model: root regression: a state of the root has vanishing probability (its intercept diverges): fit fewer states")
	}
	return fmt.Errorf("model: root regression: the covariates separate the root's states (complete or quasi-complete separation, log-odds beyond %d): the coefficient of %q diverges; drop or merge that covariate or its categories", separationEta, terms[bestJ])
}

// permute renames the root's states as Canonicalize does (perm[i] is the
// state that becomes state i) and re-references the coefficients to the
// new state 0: β_i ← β_perm[i] − β_perm[0]. The probabilities are
// unchanged. It returns the standard errors se (laid out as Beta)
// renamed alike, or nil when the reference changes (those of
// differences to the old reference do not give them).
func (r *RootRegression) permute(perm []int, se []float64) []float64 {
	p := 1 + r.NumTerms()
	old := slices.Clone(r.Beta)
	ref := old[perm[0]*p : (perm[0]+1)*p]
	for i, q := range perm {
		for j := 0; j < p; j++ {
			r.Beta[i*p+j] = old[q*p+j] - ref[j]
		}
	}
	if perm[0] != 0 || se == nil {
		return nil
	}
	out := make([]float64, len(se))
	for i, q := range perm {
		copy(out[i*p:(i+1)*p], se[q*p:(q+1)*p])
	}
	return out
}

// Covariates returns the covariate columns of the model's root
// regression (model.Covariates), nil without one.
func (m *Model) Covariates() []data.Variable {
	if m.Regression == nil {
		return nil
	}
	out := make([]data.Variable, len(m.Regression.Covariates))
	for i, c := range m.Regression.Covariates {
		out[i] = data.Variable{Name: c.Name, Kind: data.Continuous}
		if c.States != nil {
			out[i] = data.Variable{Name: c.Name, Kind: data.Discrete, States: slices.Clone(c.States)}
		}
	}
	return out
}
