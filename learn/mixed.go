package learn

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/tree"
)

// Data that mix continuous and discrete columns get a conditional-Gaussian
// model (package mixed): Learn learns the structure from the mixed
// information distances, as on data of one kind, and model.Fit fits the
// mixed family. A conditional-Gaussian tree has no discrete node below a
// continuous one, so a continuous observed variable that the learner put
// on a path between two discrete ones (an internal node of a Chow–Liu
// tree, or of a CLNJ tree whose observed variables stay internal) admits
// no such model: mixed.Repair hangs it under a new discrete hidden node
// that takes its place in the tree.

// MixedReport says what Learn did with data that mix continuous and
// discrete columns: it fitted a conditional-Gaussian model (package mixed).
type MixedReport struct {
	// Continuous and Discrete count the observed variables of each kind;
	// HiddenContinuous and HiddenDiscrete the hidden variables of each
	// kind in the fitted model (mixed.Layout chooses them), HiddenStates
	// the number of states of the discrete ones, chosen by BIC among
	// mixed.AutoStatesRange when AutoStates (Fit.AutoStates).
	Continuous       int  `json:"continuous"`
	Discrete         int  `json:"discrete"`
	HiddenContinuous int  `json:"hidden_continuous"`
	HiddenDiscrete   int  `json:"hidden_discrete"`
	HiddenStates     int  `json:"hidden_states"`
	AutoStates       bool `json:"auto_states"`
	// Repaired names the continuous variables the structure learner put
	// between discrete ones, each hung under a new discrete hidden node
	// so that a conditional-Gaussian model fits the tree.
	Repaired []string `json:"repaired,omitempty"`
	// Integers names the continuous columns whose values are distinct
	// integers (data.DistinctIntegers): row identifiers, perhaps, which
	// the model takes for variables.
	Integers []string `json:"distinct_integers,omitempty"`
}

// dataKind is data.Continuous or data.Discrete when every column of d is
// of that kind, else data.Mixed.
func dataKind(d *data.Dataset) data.Kind {
	switch {
	case d.AllContinuous():
		return data.Continuous
	case d.AllDiscrete():
		return data.Discrete
	}
	return data.Mixed
}

// kindOf returns the kind of d's variables by name, as mixed.Layout asks
// for it.
func kindOf(d *data.Dataset) func(name string) (data.Kind, bool) { return mixed.ColumnKinds(d) }

// mixedReport describes the mixed model m fitted to the columns vars,
// whose rows are src (one more pass over them), with the nodes
// mixed.Repair moved.
func mixedReport(m *mixed.Model, vars []data.Variable, src data.Source, repaired []string, auto bool) (*MixedReport, error) {
	r := &MixedReport{Repaired: repaired, AutoStates: auto}
	for _, v := range vars {
		if v.Kind == data.Continuous {
			r.Continuous++
		} else {
			r.Discrete++
		}
	}
	for _, h := range m.Tree.Hidden() {
		if m.Kinds[h] == data.Continuous {
			r.HiddenContinuous++
		} else {
			r.HiddenDiscrete++
			r.HiddenStates = max(r.HiddenStates, m.States[h])
		}
	}
	ints, err := data.DistinctIntegers(src)
	if err != nil {
		return nil, err
	}
	r.Integers = ints
	return r, nil
}

// baselineTree is the Chow–Liu tree the contraction by BIC compares with.
// On mixed data it is repaired (mixed.Repair) and, when the statistics
// give no mutual information between the kinds, it is the minimum
// spanning tree of the information distances instead (the Chow–Liu tree
// of a Gaussian tree, whose mutual information −½ log(1 − ρ²) falls as the
// distance −log |ρ| grows).
func baselineTree(st *stats.Stats, d *data.Dataset, kind data.Kind, opt Options) (*tree.Tree, error) {
	cl, err := chowLiu(st, opt.Distance.Pseudo)
	if kind != data.Mixed {
		return cl, err
	}
	if err != nil {
		mst := opt
		mst.Method, mst.Contract = MST, ContractOptions{Rule: ContractThreshold, Threshold: -1}
		r, err2 := fromStats(st, nil, mst)
		if err2 != nil {
			return nil, fmt.Errorf("%w (and the minimum spanning tree instead: %v)", err, err2)
		}
		cl = r.Tree
	}
	if _, err := mixed.Repair(cl, kindOf(d)); err != nil {
		return nil, err
	}
	return cl, nil
}

// keepKinds replaces the result of the contraction by BIC on mixed data
// with the kinds baseline (kindsTree, fitted by fitKinds) when that has
// the lower BIC (PruneResult.Baseline 1).
func keepKinds(pr *PruneResult, st *stats.Stats, d *data.Dataset, opt Options, fit model.FitOptions) error {
	kb, err := kindsTree(st, d, opt)
	if err != nil {
		return err
	}
	m, res, err := fitKinds(kb, d, fit)
	if err != nil {
		return fmt.Errorf("learn: the trees of each kind, joined: %w", err)
	}
	if b := bicOf(m, res.LogLik, d.SampleSize()); b < pr.BIC {
		pr.Tree, pr.Model, pr.EM, pr.BIC, pr.Baseline = kb.t, m, res, b, 1
	}
	return nil
}

// kinds is the kinds baseline: the joined tree t, and the tree of the
// continuous columns alone, cont, whose node u is node ids[u] of t.
type kinds struct {
	t, cont *tree.Tree
	ids     []int
	names   []string // the continuous columns
}

// fitKinds fits a mixed model to the kinds baseline: the continuous tree
// is first fitted alone by the Gaussian family (closed-form start from
// its edge lengths, then EM: fast where mixed EM from its moment start
// creeps along a long Gaussian tree), its correlations, means and
// variances become the mixed model's parameters on those edges, the rest
// gets the moment-based start (mixed.Model.Start), and mixed EM (plain)
// runs from there to fit's tolerance.
func fitKinds(kb *kinds, d *data.Dataset, fit model.FitOptions) (*mixed.Model, *model.EMResult, error) {
	m, err := mixed.Prepare(kb.t, d, mixed.FitOptionsOf(fit))
	if err != nil {
		return nil, nil, err
	}
	if err := m.Start(d); err != nil {
		return nil, nil, err
	}
	if len(kb.names) > 1 {
		sub, err := d.SelectNames(kb.names)
		if err != nil {
			return nil, nil, err
		}
		gm, _, err := model.Fit(kb.cont.Clone(), sub, model.FitOptions{EM: model.EMOptions{Tol: fit.EM.Tol, MaxIter: fit.EM.MaxIter, Workers: fit.EM.Workers}})
		if err != nil {
			return nil, nil, err
		}
		g := gm.(*gaussian.Model)
		gr := g.Rooted()
		toG := make(map[int]int, len(kb.ids))
		for u, v := range kb.ids {
			if kb.cont.Has(u) {
				toG[v] = u
			}
		}
		r := m.Rooted()
		for _, v := range r.Order {
			p := r.Parent[v]
			gv, okv := toG[v]
			gp, okp := toG[p]
			if p < 0 || !okv || !okp || m.Kinds[v] != data.Continuous || m.Kinds[p] != data.Continuous {
				continue
			}
			rho := g.Rho[gv]
			if gr.Parent[gv] != gp {
				rho = g.Rho[gp]
			}
			sv, sp := math.Sqrt(g.Var[gv]), math.Sqrt(g.Var[gp])
			b := rho * sv / sp
			m.Coef[v], m.Mean[v][0], m.Var[v][0] = b, g.Mean[gv]-b*g.Mean[gp], math.Max(g.Var[gv]*(1-rho*rho), 1e-12*g.Var[gv])
		}
		if err := m.Validate(); err != nil {
			return nil, nil, err
		}
	}
	tol := fit.EM.Tol
	if tol == 0 {
		tol = model.DefaultTol
	}
	res, err := plainEM(m, d, fit.EM.MaxIter, tol, fit.EM.Workers)
	return m, res, err
}

// kindsTree is the second baseline of the contraction by BIC on mixed
// data (keepKinds): the method's tree over the continuous columns and its tree over
// the discrete ones, each learned alone (with the distances of one kind,
// contracted by threshold), joined by an edge between the continuous and
// the discrete variable at the smallest mixed information distance (NaN
// length when every pair is at infinite distance). Every continuous node
// then has discrete nodes in one branch at most, so a conditional-Gaussian
// model fits it with the continuous tree intact; a tree learned over all
// the columns may put a discrete column weakly tied to the others inside
// the continuous tree, making every hidden node on its paths discrete,
// which loses the Gaussian dependence that the continuous tree keeps.
func kindsTree(st *stats.Stats, d *data.Dataset, opt Options) (*kinds, error) {
	var cont, disc []string
	for _, v := range d.Vars() {
		if v.Kind == data.Continuous {
			cont = append(cont, v.Name)
		} else {
			disc = append(disc, v.Name)
		}
	}
	tc, err := kindTree(d, cont, opt)
	if err != nil {
		return nil, err
	}
	td, err := kindTree(d, disc, opt)
	if err != nil {
		return nil, err
	}
	dm, _, _, err := opt.informationDistances(st, d)
	if err != nil {
		return nil, err
	}
	best, bc, bd := math.Inf(1), cont[0], disc[0]
	for _, c := range cont {
		i, _ := dm.Index(c)
		for _, x := range disc {
			j, _ := dm.Index(x)
			if dist := dm.At(i, j); dist < best {
				best, bc, bd = dist, c, x
			}
		}
	}
	if math.IsInf(best, 0) {
		best = math.NaN()
	}
	t := tree.New()
	kb := &kinds{t: t, cont: tc, names: cont}
	for i, part := range []*tree.Tree{tc, td} {
		ids := make([]int, part.MaxID())
		if i == 0 {
			kb.ids = ids
		}
		for _, v := range part.Nodes() {
			if part.IsHidden(v) {
				ids[v] = t.AddHidden()
			} else if ids[v], err = t.AddObserved(part.Name(v)); err != nil {
				return nil, err
			}
		}
		for _, e := range part.Edges() {
			if err := t.AddEdge(ids[e.U], ids[e.V], e.Length); err != nil {
				return nil, err
			}
		}
	}
	c, _ := t.Lookup(bc)
	x, _ := t.Lookup(bd)
	if err := t.AddEdge(c, x, best); err != nil {
		return nil, err
	}
	t.AutoNameHidden("h")
	return kb, t.Validate()
}

// kindTree learns the structure over the named columns of d alone, with
// opt's method and distance options and contraction by threshold (a
// single column is a tree of one node).
func kindTree(d *data.Dataset, names []string, opt Options) (*tree.Tree, error) {
	if len(names) == 1 {
		t := tree.New()
		_, err := t.AddObserved(names[0])
		return t, err
	}
	sub, err := d.SelectNames(names)
	if err != nil {
		return nil, err
	}
	sopt := Options{Method: opt.method(), Distance: opt.Distance, RG: opt.RG, Workers: opt.Workers, MaxPairBytes: opt.MaxPairBytes,
		StructureOnly: true, Fit: model.FitOptions{HiddenStates: opt.Fit.HiddenStates}}
	res, err := Learn(sub, sopt)
	if err != nil {
		return nil, fmt.Errorf("learn: the tree of the %s columns alone: %w", sub.Var(0).Kind, err)
	}
	return res.Tree, nil
}
