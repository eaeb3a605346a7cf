package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// NumParams returns κ, the number of free parameters: k_root − 1 for the
// root and k_parent·(k_v − 1) for every other node; with a root
// regression, (k_root − 1)·(1 + terms) coefficients in place of the
// root's k_root − 1.
func (m *Model) NumParams() int {
	r := m.Rooted()
	kappa := 0
	if m.Regression != nil {
		kappa += (m.States[m.Root] - 1) * m.Regression.NumTerms()
	}
	for _, v := range r.Order {
		if v == m.Root {
			kappa += m.States[v] - 1
		} else {
			kappa += m.States[r.Parent[v]] * (m.States[v] - 1)
		}
	}
	return kappa
}

// NumParamsOn returns the NumParams of a model on t rooted at root whose
// node v has states[v] states, without the model: what a search that
// scores candidate trees before it builds their models needs.
func NumParamsOn(t *tree.Tree, root int, states []int) (int, error) {
	if !t.Has(root) {
		return 0, fmt.Errorf("model: root %d is not a node of the tree", root)
	}
	r := t.Root(root)
	kappa := 0
	for _, v := range r.Order {
		if v >= len(states) || states[v] < 1 {
			return 0, fmt.Errorf("model: node %d has no number of states", v)
		}
		if p := r.Parent[v]; p < 0 {
			kappa += states[v] - 1
		} else {
			kappa += states[p] * (states[v] - 1)
		}
	}
	return kappa, nil
}

// Score computes the log-likelihood of d and the scores derived from it.
func (m *Model) Score(d *data.Dataset, opt model.InferOptions) (*model.Score, error) {
	_, ll, err := m.LogLikelihood(d, opt)
	if err != nil {
		return nil, err
	}
	return model.ScoreOf(ll, d, m.NumParams(), m.Tree.NumHidden()), nil
}

// KLOptions configures KL.
type KLOptions struct {
	// MaxEnumerate is the largest observed state space enumerated exactly
	// (default 1<<16); above it KL is estimated by Monte Carlo.
	MaxEnumerate int
	// Samples for the Monte Carlo estimate (default 100,000).
	Samples int
	// Src drives the Monte Carlo estimate (nil: the fixed seed
	// rand.NewPCG(1, 2)).
	Src rand.Source
}

// KL returns the Kullback–Leibler divergence D(p‖q) = Σ_x p(x) log(p(x)/q(x))
// between the distributions two models give their observed variables (which
// must have the same names and state labels), in nats. When the observed
// state space has at most MaxEnumerate configurations it is exact and se is
// 0; otherwise it is the Monte Carlo mean of log p(x) − log q(x) over
// samples from p, with its standard error se.
func KL(p, q *Model, opt KLOptions) (kl, se float64, err error) {
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	obs := p.Tree.Observed()
	size := 1.0
	vars := make([]data.Variable, len(obs))
	for j, v := range obs {
		size *= float64(p.States[v])
		vars[j] = data.Variable{Name: p.Tree.Name(v), Kind: data.Discrete, States: p.StateLabels(v)}
	}
	maxEnum := opt.MaxEnumerate
	if maxEnum <= 0 {
		maxEnum = 1 << 16
	}
	if size <= float64(maxEnum) {
		n := int(size)
		d, err := data.New(vars, n)
		if err != nil {
			return 0, 0, err
		}
		for r := 0; r < n; r++ {
			x := r
			for j, v := range obs {
				k := p.States[v]
				d.Discrete(j)[r] = uint16(x % k)
				x /= k
			}
		}
		lp, lq, err := logLikBoth(p, q, d)
		if err != nil {
			return 0, 0, err
		}
		for r := range lp {
			if math.IsInf(lp[r], -1) {
				continue
			}
			if math.IsInf(lq[r], -1) {
				return math.Inf(1), 0, nil
			}
			kl += math.Exp(lp[r]) * (lp[r] - lq[r])
		}
		return math.Max(0, kl), 0, nil
	}
	ns := opt.Samples
	if ns <= 0 {
		ns = 100000
	}
	rng := seed.Rand(opt.Src, seed.Model)
	d, err := p.Sample(rng, ns)
	if err != nil {
		return 0, 0, err
	}
	lp, lq, err := logLikBoth(p, q, d)
	if err != nil {
		return 0, 0, err
	}
	var sum, sq float64
	for r := range lp {
		x := lp[r] - lq[r]
		if math.IsInf(x, 1) {
			return math.Inf(1), 0, nil
		}
		sum += x
		sq += x * x
	}
	mean := sum / float64(ns)
	v := (sq - float64(ns)*mean*mean) / float64(ns-1)
	if ns < 2 {
		return mean, 0, errors.New("model: KL needs at least 2 samples")
	}
	return mean, math.Sqrt(math.Max(0, v) / float64(ns)), nil
}

// logLikBoth returns the log-likelihood of each row of d under p and
// under q (KL's two sides); an error of q's is marked as the second
// model's.
func logLikBoth(p, q *Model, d *data.Dataset) (lp, lq []float64, err error) {
	lp, _, err = p.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		return nil, nil, err
	}
	lq, _, err = q.LogLikelihood(d, model.InferOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("model: KL: second model: %w", err)
	}
	return lp, lq, nil
}

// JointMarginal returns the exact joint distribution of the given observed
// nodes, row-major (first node slowest), by variable elimination on the
// tree: every node whose subtree holds a queried node sends its parent a
// table over the parent's states and the queried nodes below it; other
// subtrees sum to one and are skipped. The cost is about the number of
// nodes times the size of the result times the number of hidden states.
func (m *Model) JointMarginal(nodes []int) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	query, size, err := m.queryNodes(nodes)
	if err != nil {
		return nil, err
	}
	final := m.eliminate(query)
	return m.reorderAxes(final, nodes, size), nil
}

// queryNodes checks JointMarginal's nodes (observed, each once, a table
// of at most 2²² cells) and returns them as a set with the table's size.
func (m *Model) queryNodes(nodes []int) (query map[int]bool, size int, err error) {
	size = 1
	query = make(map[int]bool, len(nodes))
	for _, v := range nodes {
		if !m.Tree.Has(v) || m.Tree.IsHidden(v) {
			return nil, 0, fmt.Errorf("model: node %d is not an observed node", v)
		}
		if query[v] {
			return nil, 0, fmt.Errorf("model: node %q queried twice", m.Tree.Name(v))
		}
		query[v] = true
		size *= m.States[v]
		if size > 1<<22 {
			return nil, 0, errors.New("model: joint table too large")
		}
	}
	return query, size, nil
}

// jointTable is a message of JointMarginal's elimination: vars lists its
// queried nodes, data is indexed [node state][queried states, row-major
// in vars order].
type jointTable struct {
	vars []int
	data []float64
}

// eliminate sends the messages of JointMarginal up the tree and returns
// the root's: the joint table of the queried nodes, in the order the
// elimination met them.
func (m *Model) eliminate(query map[int]bool) jointTable {
	r := m.Rooted()
	// has[v]: the subtree of v holds a queried node.
	has := make([]bool, m.Tree.MaxID())
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		if query[v] {
			has[v] = true
		}
		if p := r.Parent[v]; p >= 0 && has[v] {
			has[p] = true
		}
	}
	// up[v] is v's message, indexed by its parent's states.
	up := make([]jointTable, m.Tree.MaxID())
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		if !has[v] {
			continue
		}
		kv := m.States[v]
		// f[b, X] over v's states b and the queried nodes X below v.
		f := jointTable{data: make([]float64, kv)}
		for b := range f.data {
			f.data[b] = 1
		}
		if query[v] {
			f.vars = []int{v}
			f.data = make([]float64, kv*kv)
			for b := 0; b < kv; b++ {
				f.data[b*kv+b] = 1
			}
		}
		for _, c := range r.Children[v] {
			if !has[c] {
				continue
			}
			f = outerPerState(f, up[c], kv)
			up[c] = jointTable{}
		}
		if v == r.Root {
			// The prior is a CPT with one parent state.
			return jointTable{vars: f.vars, data: sumOutStates(f.data, m.Prior, 1, kv)}
		}
		up[v] = jointTable{vars: f.vars, data: sumOutStates(f.data, m.CPT[v], m.States[r.Parent[v]], kv)}
	}
	return jointTable{}
}

// outerPerState returns, for each of the kv states b, the outer product
// of f[b, ·] and u[b, ·]: a table over f's variables then u's.
func outerPerState(f, u jointTable, kv int) jointTable {
	sf, su := len(f.data)/kv, len(u.data)/kv
	g := make([]float64, kv*sf*su)
	for b := 0; b < kv; b++ {
		fb, ub := f.data[b*sf:(b+1)*sf], u.data[b*su:(b+1)*su]
		gb := g[b*sf*su : (b+1)*sf*su]
		for i, x := range fb {
			if x == 0 {
				continue
			}
			row := gb[i*su : (i+1)*su]
			for j, y := range ub {
				row[j] = x * y
			}
		}
	}
	return jointTable{vars: append(f.vars, u.vars...), data: g}
}

// sumOutStates returns u[a, X] = Σ_b cpt[a*kv+b] f[b, X] for kp parent
// states a: the message of a node with kv states to its parent.
func sumOutStates(f, cpt []float64, kp, kv int) []float64 {
	sf := len(f) / kv
	u := make([]float64, kp*sf)
	for a := 0; a < kp; a++ {
		ua := u[a*sf : (a+1)*sf]
		for b := 0; b < kv; b++ {
			if w := cpt[a*kv+b]; w != 0 {
				for i, x := range f[b*sf : (b+1)*sf] {
					ua[i] += w * x
				}
			}
		}
	}
	return u
}

// reorderAxes returns the size cells of final with its axes reordered
// from final.vars to nodes.
func (m *Model) reorderAxes(final jointTable, nodes []int, size int) []float64 {
	pos := make(map[int]int, len(final.vars))
	for i, v := range final.vars {
		pos[v] = i
	}
	stride := make([]int, len(final.vars))
	s := 1
	for i := len(final.vars) - 1; i >= 0; i-- {
		stride[i] = s
		s *= m.States[final.vars[i]]
	}
	out := make([]float64, size)
	idx := make([]int, len(nodes))
	for o := range out {
		src := 0
		for k, v := range nodes {
			src += idx[k] * stride[pos[v]]
		}
		out[o] = final.data[src]
		for k := len(nodes) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < m.States[nodes[k]] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}
