package model

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// gbinding maps a continuous dataset onto a Gaussian model's observed
// nodes by name.
type gbinding struct {
	obs  []int // model observed nodes in column order of cols
	cols [][]float64
	rows int
}

func (g *Gaussian) bind(d *data.Dataset) (*gbinding, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	t := g.Tree
	b := &gbinding{rows: d.NumRows()}
	used := make([]bool, d.NumVars())
	for _, v := range t.Observed() {
		j, ok := d.Index(t.Name(v))
		if !ok {
			return nil, fmt.Errorf("model: the data has no column %q (a variable of the model)", t.Name(v))
		}
		if d.Var(j).Kind != data.Continuous {
			return nil, fmt.Errorf("model: column %q is discrete but the model's variable is continuous", t.Name(v))
		}
		used[j] = true
		b.obs = append(b.obs, v)
		b.cols = append(b.cols, d.Continuous(j))
	}
	for j, u := range used {
		if !u {
			return nil, fmt.Errorf("model: column %q of the data is not a variable of the model", d.Var(j).Name)
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
func (g *Gaussian) covariance(a, b []int) []float64 {
	out := make([]float64, len(a)*len(b))
	for i, u := range a {
		c := g.correlations(u)
		for j, v := range b {
			out[i*len(b)+j] = c[v] * math.Sqrt(g.Var[u]*g.Var[v])
		}
	}
	return out
}

// NumParams returns κ: one correlation per edge and a mean and a variance
// per observed variable (hidden variables have mean 0 and variance 1, which
// fixes their scale).
func (g *Gaussian) NumParams() int {
	return g.Tree.NumEdges() + 2*g.Tree.NumObserved()
}

// LogLikelihood returns the log-likelihood of every row of d under the
// model's distribution of its observed variables, and their sum. Missing
// cells (NaN) are marginalised: each row is scored under the marginal of
// its observed cells.
func (g *Gaussian) LogLikelihood(d *data.Dataset, opt InferOptions) ([]float64, float64, error) {
	if err := g.Validate(); err != nil {
		return nil, 0, err
	}
	b, err := g.bind(d)
	if err != nil {
		return nil, 0, err
	}
	p := len(b.obs)
	full := g.covariance(b.obs, b.obs)
	out := make([]float64, b.rows)
	for _, pt := range b.patterns() {
		idx, rows := pt.idx, pt.rows
		q := len(idx)
		if q == 0 {
			continue
		}
		sub := mat.NewSymDense(q, nil)
		for a, i := range idx {
			for c, j := range idx {
				sub.SetSym(a, c, full[i*p+j])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sub) {
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
	total := 0.0
	for _, v := range out {
		total += v
	}
	return out, total, nil
}

// Score is as Discrete.Score for a Gaussian model.
func (g *Gaussian) Score(d *data.Dataset, opt InferOptions) (*Score, error) {
	_, ll, err := g.LogLikelihood(d, opt)
	if err != nil {
		return nil, err
	}
	return newScore(ll, d.NumRows(), g.NumParams(), g.Tree.NumHidden()), nil
}

// Conditional returns, for each of the given nodes and every row, the mean
// and standard deviation of the node given the row's observed cells:
// posterior of hidden variables, and prediction of missing cells.
func (g *Gaussian) Conditional(d *data.Dataset, nodes []int) (mean, sd [][]float64, err error) {
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	b, err := g.bind(d)
	if err != nil {
		return nil, nil, err
	}
	p := len(b.obs)
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
			sub := mat.NewSymDense(q, nil)
			for a, i := range idx {
				for c, j := range idx {
					sub.SetSym(a, c, full[i*p+j])
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(sub) {
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
			}
		}
	}
	return mean, sd, nil
}

// GaussianFitOptions configures FitGaussian.
type GaussianFitOptions struct {
	// MaxIter bounds the EM iterations (default 500; negative: none, the
	// closed-form start only).
	MaxIter int
	// Tol is the relative change of the log-likelihood at which EM stops
	// (default 1e-8).
	Tol float64
}

// FitGaussian fits a Gaussian latent tree model on t to the continuous data
// d. Observed means and variances are the sample ones. Edge correlations
// start in closed form from the tree's edge lengths, |ρ| = e^{−length}
// (Choi et al. 2011, eq. 5: exact when the lengths are the information
// distances of a Gaussian latent tree), with signs from the sample
// correlations of surrogates (every hidden variable positively correlated
// with its nearest observed variable, which fixes its sign); unknown
// lengths start at ρ = 0.5. EM on the sample covariance then maximises the
// likelihood. Rows with missing cells are left out.
func FitGaussian(t *tree.Tree, d *data.Dataset, opt GaussianFitOptions) (*Gaussian, *EMResult, error) {
	root := DefaultRoot(t)
	g, err := NewGaussian(t, root, 0.5)
	if err != nil {
		return nil, nil, err
	}
	b, err := g.bind(d)
	if err != nil {
		return nil, nil, err
	}
	// Complete rows; sample moments.
	p := len(b.obs)
	var rows []int
	for r := 0; r < b.rows; r++ {
		ok := true
		for j := 0; j < p; j++ {
			if math.IsNaN(b.cols[j][r]) {
				ok = false
				break
			}
		}
		if ok {
			rows = append(rows, r)
		}
	}
	n := len(rows)
	if n < 2 {
		return nil, nil, errors.New("model: fewer than 2 complete rows")
	}
	mean := make([]float64, p)
	for j := 0; j < p; j++ {
		for _, r := range rows {
			mean[j] += b.cols[j][r]
		}
		mean[j] /= float64(n)
	}
	S := make([]float64, p*p) // ML covariance
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			s := 0.0
			for _, r := range rows {
				s += (b.cols[i][r] - mean[i]) * (b.cols[j][r] - mean[j])
			}
			S[i*p+j], S[j*p+i] = s/float64(n), s/float64(n)
		}
	}
	pos := make([]int, t.MaxID()) // node → column, −1 hidden
	for i := range pos {
		pos[i] = -1
	}
	for j, v := range b.obs {
		pos[v] = j
		g.Mean[v] = mean[j]
		if !(S[j*p+j] > 0) {
			return nil, nil, fmt.Errorf("model: variable %q has zero variance", t.Name(v))
		}
		g.Var[v] = S[j*p+j]
	}
	// Closed-form start.
	dm := &Discrete{Tree: t, Root: root}
	sur := dm.Surrogates()
	corr := func(u, v int) float64 {
		i, j := pos[sur[u]], pos[sur[v]]
		if i == j {
			return 1
		}
		return S[i*p+j] / math.Sqrt(S[i*p+i]*S[j*p+j])
	}
	r := g.Rooted()
	for _, v := range r.Order {
		if v == root {
			continue
		}
		u := r.Parent[v]
		l, _ := t.EdgeLength(u, v)
		rho := 0.5
		if !math.IsNaN(l) {
			rho = math.Min(math.Exp(-l), 0.999)
		}
		if corr(u, v) < 0 {
			rho = -rho
		}
		g.Rho[v] = rho
	}
	res := &EMResult{Rows: b.rows, DistinctRows: n}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = 500
	}
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-8
	}
	ll := gaussLL(g, b.obs, S, n)
	res.Trace = append(res.Trace, ll)
	nodes := t.Nodes()
	for it := 1; it <= maxIter; it++ {
		// E-step: E[z zᵀ] over all nodes from the sample covariance:
		// with A = Σ_zx Σ_xx⁻¹, E = A S Aᵀ + Σ_zz − A Σ_xz.
		sxx := mat.NewSymDense(p, g.covariance(b.obs, b.obs))
		var ch mat.Cholesky
		if !ch.Factorize(sxx) {
			return nil, nil, errors.New("model: EM reached a singular covariance")
		}
		zx := mat.NewDense(len(nodes), p, g.covariance(nodes, b.obs))
		var at mat.Dense
		if err := ch.SolveTo(&at, zx.T()); err != nil {
			return nil, nil, err
		}
		A := mat.DenseCopyOf(at.T())
		Sm := mat.NewDense(p, p, S)
		var t1, E mat.Dense
		t1.Mul(A, Sm)
		E.Mul(&t1, A.T())
		var t2 mat.Dense
		t2.Mul(A, zx.T())
		zz := mat.NewDense(len(nodes), len(nodes), g.covariance(nodes, nodes))
		E.Add(&E, zz)
		E.Sub(&E, &t2)
		idx := make(map[int]int, len(nodes))
		for x, v := range nodes {
			idx[v] = x
		}
		// M-step: correlations from expected second moments; hidden
		// variables rescaled to unit variance.
		for _, v := range r.Order {
			if v == root {
				continue
			}
			u := r.Parent[v]
			a, c := idx[u], idx[v]
			den := math.Sqrt(E.At(a, a) * E.At(c, c))
			if den > 0 {
				g.Rho[v] = math.Max(-0.999999, math.Min(0.999999, E.At(a, c)/den))
			}
		}
		newLL := gaussLL(g, b.obs, S, n)
		res.Trace = append(res.Trace, newLL)
		res.Iterations = it
		if math.Abs(newLL-ll) <= tol*math.Abs(ll) {
			res.Converged = true
			ll = newLL
			break
		}
		ll = newLL
	}
	if maxIter < 0 {
		res.Converged = true
	}
	res.LogLik = ll
	return g, res, nil
}

// gaussLL is the log-likelihood of n rows with ML covariance S (means at
// their MLE) under the model: −n/2 (p log 2π + log|Σ| + tr(Σ⁻¹S)).
func gaussLL(g *Gaussian, obs []int, S []float64, n int) float64 {
	p := len(obs)
	sig := mat.NewSymDense(p, g.covariance(obs, obs))
	var ch mat.Cholesky
	if !ch.Factorize(sig) {
		return math.Inf(-1)
	}
	var x mat.Dense
	if err := ch.SolveTo(&x, mat.NewDense(p, p, S)); err != nil {
		return math.Inf(-1)
	}
	return -0.5 * float64(n) * (float64(p)*math.Log(2*math.Pi) + ch.LogDet() + mat.Trace(&x))
}
