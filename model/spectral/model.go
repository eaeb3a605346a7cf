package spectral

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/names"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Model is a spectral latent tree model whose parameters are a tensor network
// (Song et al., ICML 2013): one table per hidden node over the
// representatives of its neighbours (the observed variables nearest to it
// in each direction) and one linker matrix per edge between hidden nodes.
// It gives an estimate P̂ of the joint distribution of the observed
// variables, which may be ≤ 0 for some rows and need not sum to exactly 1:
// it is never renormalised. Log-likelihoods exist only for rows with
// P̂ > 0 (NaN otherwise, and Score counts the others). It has no
// hidden-variable posteriors: Conditionals and Impute work for observed
// variables. Observed variables at internal nodes are factors of their
// own; hidden nodes of high degree are split into chains of copies.
type Model struct {
	// Tree is the structure the model was fitted on (shared).
	Tree *tree.Tree
	// HiddenStates is k′; Linker and Tol are the options of the fit.
	HiddenStates int
	Linker       model.Linker
	Tol          float64
	// States and Labels of the observed variables, indexed by node.
	States []int
	Labels [][]string
	// Edges reports every linker: one per edge between two factors (hidden
	// nodes, observed internal nodes, copies of split nodes).
	Edges []EdgeSpectrum

	root int // tree node of the root factor (or model.DefaultRoot)
	net  *specNet
}

var _ model.Model = (*Model)(nil)

// Fit fits a spectral Model with structure t to the discrete data
// d (Song et al. 2013, Algorithm 1 with the linker of opt.Linker). Every
// observed variable of t must be a discrete column of d and every column a
// variable of t. Missing cells are allowed: each table is estimated from
// the rows in which its variables are all observed. Row weights of d
// (data.Dataset.RowWeights) weight the tables, as FitWeighted.
func Fit(t *tree.Tree, d *data.Dataset, opt Options) (*Model, error) {
	if d != nil && d.Weighted() {
		return fit(t, d, d.RowWeights(), opt)
	}
	return fit(t, d, nil, opt)
}

// FitWeighted is Fit with a weight per row (survey weights,
// counts of distinct rows, or exact probabilities for population tables).
func FitWeighted(t *tree.Tree, d *data.Dataset, weights []float64, opt Options) (*Model, error) {
	if d != nil && len(weights) != d.NumRows() {
		return nil, fmt.Errorf("model: %d weights for %d rows", len(weights), d.NumRows())
	}
	for r, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("model: weight %g of row %d is not a finite non-negative number", w, r+1)
		}
	}
	return fit(t, d, weights, opt)
}

func (o Options) validate() (Options, error) {
	switch {
	case o.HiddenStates < 0:
		return o, fmt.Errorf("model: %d hidden states: want at least 1 (0: 2)", o.HiddenStates)
	case o.HiddenStates > data.MaxStates:
		return o, fmt.Errorf("model: %d hidden states: at most %d", o.HiddenStates, data.MaxStates)
	case o.Linker != model.LinkerMStar && o.Linker != model.LinkerParikh && o.Linker != model.LinkerMStarFull:
		return o, fmt.Errorf("model: unknown model.Linker %d", o.Linker)
	case o.Tol < 0 || o.Tol >= 1 || math.IsNaN(o.Tol):
		return o, fmt.Errorf("model: spectral tolerance %g must be in [0, 1) (0: model.DefaultSpectralTol %g)", o.Tol, model.DefaultSpectralTol)
	}
	if o.HiddenStates == 0 {
		o.HiddenStates = 2
	}
	if o.Tol == 0 {
		o.Tol = model.DefaultSpectralTol
	}
	return o, nil
}

func fit(t *tree.Tree, d *data.Dataset, weights []float64, opt Options) (*Model, error) {
	opt, err := opt.validate()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errors.New("model: no tree")
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if t.NumHidden() == 0 {
		return nil, errors.New("model: spectral parameters need a tree with hidden nodes (this tree has none; fit it with EM)")
	}
	if d == nil || d.NumRows() == 0 {
		return nil, errors.New("model: no data rows to fit")
	}
	if err := model.CheckColumns(t, d.Names()); err != nil {
		return nil, err
	}
	s := &Model{Tree: t, HiddenStates: opt.HiddenStates, Linker: opt.Linker, Tol: opt.Tol,
		States: make([]int, t.MaxID()), Labels: make([][]string, t.MaxID()), root: model.DefaultRoot(t)}
	sd := &specData{cols: make([][]uint16, t.MaxID()), weight: weights, rows: d.NumRows()}
	var cont []string
	for _, v := range t.Observed() {
		j, _ := d.Index(t.Name(v))
		dv := d.Var(j)
		if dv.Kind != data.Discrete {
			cont = append(cont, dv.Name)
			continue
		}
		if len(dv.States) == 0 {
			return nil, fmt.Errorf("model: column %q has no observed value", dv.Name)
		}
		s.States[v] = len(dv.States)
		s.Labels[v] = append([]string(nil), dv.States...)
		sd.cols[v] = d.Discrete(j)
	}
	if len(cont) > 0 {
		return nil, fmt.Errorf("model: spectral parameters need discrete data; continuous column(s): %s", names.Cap(cont, 5))
	}
	net, err := buildNet(t, s.States, opt.HiddenStates)
	if err != nil {
		return nil, err
	}
	if err := net.estimate(sd, opt, s); err != nil {
		return nil, err
	}
	s.setNet(net)
	return s, nil
}

// setNet installs a fitted or read network.
func (s *Model) setNet(net *specNet) {
	net.fold()
	s.net = net
	s.Edges = s.Edges[:0]
	for _, f := range net.order {
		if fac := &net.factors[f]; fac.parent >= 0 {
			s.Edges = append(s.Edges, fac.edge)
		}
	}
	if node := net.factors[net.root].node; node >= 0 {
		s.root = node
	}
}

func (s *Model) name(v int) string { return s.Tree.Name(v) }

func (s *Model) names(vs []int) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = s.Tree.Name(v)
	}
	return names.Quote(q, 10)
}

// Structure returns the model's tree.
func (s *Model) Structure() *tree.Tree { return s.Tree }

// RootNode returns the hidden node at which the tensor network is rooted.
func (s *Model) RootNode() int { return s.root }

// Kind returns data.Discrete.
func (s *Model) Kind() data.Kind { return data.Discrete }

// NodeKind returns data.Discrete: every node of the model has that kind.
func (*Model) NodeKind(int) data.Kind { return data.Discrete }

// StateLabels returns the state labels of observed node v.
func (s *Model) StateLabels(v int) []string {
	if s.Labels[v] != nil {
		return s.Labels[v]
	}
	l := make([]string, s.States[v])
	for i := range l {
		l[i] = fmt.Sprint(i)
	}
	return l
}

// Validate checks the network's tables and linkers.
func (s *Model) Validate() error {
	if s.net == nil || s.Tree == nil {
		return errors.New("model: spectral model without parameters (use Fit or Read)")
	}
	for f := range s.net.factors {
		fac := &s.net.factors[f]
		if len(fac.table) != cellCount(fac.shape) || len(fac.shape) != len(fac.modes) {
			return errors.New("model: spectral model: a table does not match its shape")
		}
		for _, x := range fac.table {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errors.New("model: spectral model: a table has a non-finite entry")
			}
		}
		if fac.parent >= 0 {
			na := fac.shape[0]
			p := &s.net.factors[fac.parent]
			j := s.net.childMode(fac.parent, f)
			if j < 0 || len(fac.linker) != na*p.shape[j] {
				return errors.New("model: spectral model: a linker does not match its tables")
			}
			for _, x := range fac.linker {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return errors.New("model: spectral model: a linker has a non-finite entry")
				}
			}
		}
	}
	return nil
}

// NumParams returns the number of free parameters of the discrete latent
// tree model with k′ states per hidden variable that the tensor network
// estimates (so that BIC compares with an EM fit of the same k′).
func (s *Model) NumParams() int {
	r := s.Tree.Root(s.root)
	k := func(v int) int {
		if s.Tree.IsHidden(v) {
			return s.HiddenStates
		}
		return s.States[v]
	}
	kappa := 0
	for _, v := range r.Order {
		if v == s.root {
			kappa += k(v) - 1
		} else {
			kappa += k(r.Parent[v]) * (k(v) - 1)
		}
	}
	return kappa
}

// bind matches the data's columns and state labels with the model's.
func (s *Model) bind(d *data.Dataset) (*specData, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	if err := model.CheckColumns(s.Tree, d.Names()); err != nil {
		return nil, err
	}
	sd := &specData{cols: make([][]uint16, s.Tree.MaxID()), rows: d.NumRows()}
	for _, v := range s.Tree.Observed() {
		name := s.Tree.Name(v)
		j, _ := d.Index(name)
		dv := d.Var(j)
		if dv.Kind != data.Discrete {
			return nil, fmt.Errorf("model: column %q is continuous but the model's variable is discrete", name)
		}
		remap, err := model.StateRemap(dv, s.StateLabels(v))
		if err != nil {
			return nil, err
		}
		col := make([]uint16, d.NumRows())
		for r, c := range d.Discrete(j) {
			col[r] = data.Missing
			if c != data.Missing {
				col[r] = remap[c]
			}
		}
		sd.cols[v] = col
	}
	return sd, nil
}

// SignedLogProb returns the sign of P̂ and log|P̂| of every row of d
// (model.RowLikelihoods uses it: the log is NaN where P̂ ≤ 0).
func (s *Model) SignedLogProb(d *data.Dataset, opt model.InferOptions) (sign, logAbs []float64, err error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	sd, err := s.bind(d)
	if err != nil {
		return nil, nil, err
	}
	e := newSpecEngine(s.net)
	sign, logAbs = make([]float64, sd.rows), make([]float64, sd.rows)
	e.forRows(sd.rows, model.Workers(opt.Workers), func(w *specRow, r int) {
		sign[r], logAbs[r] = e.rowProb(w, sd, r, -1)
	})
	return sign, logAbs, nil
}

// Prob returns P̂ of every row of d (missing cells marginalised). Values
// may be ≤ 0 and are not renormalised; for very many variables P̂ may
// underflow to 0 — use RowLikelihoods for the logs.
func (s *Model) Prob(d *data.Dataset, opt model.InferOptions) ([]float64, error) {
	sign, la, err := s.SignedLogProb(d, opt)
	if err != nil {
		return nil, err
	}
	p := make([]float64, len(sign))
	for r := range p {
		p[r] = sign[r] * math.Exp(la[r])
	}
	return p, nil
}

// LogLikelihood returns log P̂ of every row of d (NaN where P̂ ≤ 0) and
// the sum over the rows with P̂ > 0.
func (s *Model) LogLikelihood(d *data.Dataset, opt model.InferOptions) ([]float64, float64, error) {
	sign, la, err := s.SignedLogProb(d, opt)
	if err != nil {
		return nil, 0, err
	}
	w := d.RowWeights()
	total := 0.0
	for r := range la {
		switch {
		case !(sign[r] > 0):
			la[r] = math.NaN()
		case w == nil:
			total += la[r]
		case w[r] != 0:
			total += w[r] * la[r]
		}
	}
	return la, total, nil
}

// Score returns the log-likelihood over the rows with P̂ > 0, the scores
// derived from it, and the number of rows with P̂ ≤ 0 (NonPositive).
// PerRow is the mean over the rows with P̂ > 0 (the others would be −∞);
// BIC and AIC use the sum over those rows and all n rows, so they are not
// comparable with another model's when NonPositive > 0.
func (s *Model) Score(d *data.Dataset, opt model.InferOptions) (*model.Score, error) {
	ll, total, err := s.LogLikelihood(d, opt)
	if err != nil {
		return nil, err
	}
	sc := model.ScoreOf(total, d, s.NumParams(), s.Tree.NumHidden())
	w := d.RowWeights()
	pos := 0.0
	for r, x := range ll {
		switch {
		case math.IsNaN(x):
			sc.NonPositive++
		case w == nil:
			pos++
		default:
			pos += w[r]
		}
	}
	if pos > 0 {
		sc.PerRow = total / pos
	}
	return sc, nil
}

// Conditionals returns, for each given observed node, its distribution in
// every row given the row's other observed cells: P̂(x_v = s, rest)
// normalised over s after negative estimates are set to 0 (NaN when no
// state has a positive estimate). An observed cell gets the point mass on
// its state, as for a Discrete model. Hidden nodes are an error: the
// tensor network has no hidden-variable posteriors.
func (s *Model) Conditionals(d *data.Dataset, nodes []int, opt model.InferOptions) ([]model.Conditional, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	for _, v := range nodes {
		if !s.Tree.Has(v) {
			return nil, fmt.Errorf("model: node %d is not in the tree", v)
		}
		if s.Tree.IsHidden(v) {
			return nil, fmt.Errorf("model: %s is hidden, and a spectral model has no posteriors of hidden variables (fit with --params em or --init spectral for them)", s.Tree.Name(v))
		}
	}
	sd, err := s.bind(d)
	if err != nil {
		return nil, err
	}
	out := make([]model.Conditional, len(nodes))
	for x, v := range nodes {
		out[x] = model.Conditional{Node: v, Name: s.Tree.Name(v), Labels: s.StateLabels(v), Prob: make([]float64, sd.rows*s.States[v])}
	}
	e := newSpecEngine(s.net)
	e.forRows(sd.rows, model.Workers(opt.Workers), func(w *specRow, r int) {
		e.rowProb(w, sd, r, -1)
		e.downward(w, sd, r)
		for x, v := range nodes {
			k := s.States[v]
			dst := out[x].Prob[r*k : (r+1)*k]
			if c := sd.cols[v][r]; c != data.Missing {
				dst[c] = 1
				continue
			}
			e.leafVector(w, sd, r, v, dst)
			clipNormalise(dst)
		}
	})
	return out, nil
}

// clipNormalise sets negative entries to 0 and normalises; all NaN when
// nothing positive remains.
func clipNormalise(p []float64) {
	t := 0.0
	for i, x := range p {
		if !(x > 0) {
			p[i] = 0
		}
		t += p[i]
	}
	for i := range p {
		if t > 0 {
			p[i] /= t
		} else {
			p[i] = math.NaN()
		}
	}
}

// Impute fills every missing cell with its most likely state given the
// row's observed cells (Conditionals).
func (s *Model) Impute(d *data.Dataset, opt model.ImputeOptions) (*model.Imputation, error) {
	return model.ImputeDiscrete(s.Tree, s.StateLabels, s.Conditionals, d, opt)
}

// Sample draws n rows from P̂ one variable at a time, each from its
// conditional given those already drawn (negative estimates set to 0):
// an approximation of P̂ where it is not a distribution. A nil src means
// the fixed seed rand.NewPCG(1, 2).
func (s *Model) Sample(src rand.Source, n int) (*data.Dataset, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("model: %d rows", n)
	}
	rng := seed.Rand(src, seed.Model)
	obs := s.Tree.Observed()
	sd := &specData{cols: make([][]uint16, s.Tree.MaxID()), rows: n}
	for _, v := range obs {
		col := make([]uint16, n)
		for r := range col {
			col[r] = data.Missing
		}
		sd.cols[v] = col
	}
	e := newSpecEngine(s.net)
	w := e.newRow()
	p := make([]float64, 0, 16)
	for r := 0; r < n; r++ {
		for _, v := range obs {
			e.rowProb(w, sd, r, -1)
			e.downward(w, sd, r)
			p = p[:s.States[v]]
			e.leafVector(w, sd, r, v, p)
			clipNormalise(p)
			if math.IsNaN(p[0]) {
				return nil, fmt.Errorf("model: the spectral estimate gives no positive probability to any state of %s in sampled row %d", s.Tree.Name(v), r+1)
			}
			u, c := rng.Float64(), 0.0
			x := len(p) - 1
			for i, q := range p {
				c += q
				if u < c {
					x = i
					break
				}
			}
			sd.cols[v][r] = uint16(x)
		}
	}
	vars := make([]data.Variable, len(obs))
	cols := make([][]uint16, len(obs))
	for i, v := range obs {
		vars[i] = data.Variable{Name: s.Tree.Name(v), Kind: data.Discrete, States: s.StateLabels(v)}
		cols[i] = sd.cols[v]
	}
	return data.FromDiscrete(vars, cols)
}

// InformationDistances returns the information distances between the
// given observed nodes computed from P̂'s pair marginals (Lake 1994; +Inf
// for a singular pair table). Hidden nodes are an error.
func (s *Model) InformationDistances(nodes []int) ([]float64, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	for _, v := range nodes {
		if err := model.CheckNodes(s.Tree, []int{v}); err != nil {
			return nil, err
		}
		if s.Tree.IsHidden(v) {
			return nil, fmt.Errorf("model: %s is hidden; a spectral model has information distances between observed variables only", s.Tree.Name(v))
		}
	}
	m := len(nodes)
	sd := &specData{cols: make([][]uint16, s.Tree.MaxID()), rows: 1}
	for _, v := range s.Tree.Observed() {
		sd.cols[v] = []uint16{data.Missing}
	}
	e := newSpecEngine(s.net)
	w := e.newRow()
	// pairs[x][y] = P̂(x_u, x_v) row-major over u's and v's states.
	pairs := make([][][]float64, m)
	for x, u := range nodes {
		ku := s.States[u]
		pairs[x] = make([][]float64, m)
		for y, v := range nodes {
			pairs[x][y] = make([]float64, ku*s.States[v])
		}
		for a := 0; a < ku; a++ {
			sd.cols[u][0] = uint16(a)
			sign, la := e.rowProb(w, sd, 0, -1)
			e.downward(w, sd, 0)
			for y, v := range nodes {
				kv := s.States[v]
				row := pairs[x][y][a*kv : (a+1)*kv]
				if v == u {
					row[a] = sign * math.Exp(la)
					continue
				}
				e.leafVector(w, sd, 0, v, row)
				// Rescale: the leaf vector sums to P̂(x_u = a).
				t := 0.0
				for _, q := range row {
					t += q
				}
				if t != 0 {
					for b := range row {
						row[b] *= sign * math.Exp(la) / t
					}
				}
			}
		}
		sd.cols[u][0] = data.Missing
	}
	out := make([]float64, m*m)
	for x, u := range nodes {
		for y, v := range nodes {
			if x == y {
				continue
			}
			if s.States[u] != s.States[v] {
				return nil, fmt.Errorf("model: information distance between %s (%d states) and %s (%d states) is undefined", s.Tree.Name(u), s.States[u], s.Tree.Name(v), s.States[v])
			}
			out[x*m+y] = pairDistance(pairs[x][y], s.States[u])
		}
	}
	return out, nil
}

// pairDistance is −log|det P| + ½ log det diag P_u + ½ log det diag P_v
// of a k×k pair table; +Inf when singular or a marginal is not positive.
func pairDistance(p []float64, k int) float64 {
	lu, lv := 0.0, 0.0
	for a := 0; a < k; a++ {
		ru, rv := 0.0, 0.0
		for b := 0; b < k; b++ {
			ru += p[a*k+b]
			rv += p[b*k+a]
		}
		if !(ru > 0) || !(rv > 0) {
			return math.Inf(1)
		}
		lu += math.Log(ru)
		lv += math.Log(rv)
	}
	ld, sign := mat.LogDet(mat.NewDense(k, k, append([]float64(nil), p...)))
	if sign == 0 || math.IsInf(ld, -1) || math.IsNaN(ld) {
		return math.Inf(1)
	}
	return max(0, -ld+0.5*lu+0.5*lv)
}
