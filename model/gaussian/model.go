package gaussian

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Model is a Gaussian latent tree model: every node is a real variable,
// jointly Gaussian, Markov on the tree. It is parameterised by each node's
// mean and variance and, for every node other than the root, the
// correlation Rho with its parent.
type Model struct {
	Tree *tree.Tree
	Root int
	// Mean[v] and Var[v] are the mean and variance of node v.
	Mean, Var []float64
	// Rho[v] is the correlation of v with its parent; Rho[Root] is unused.
	Rho []float64

	rooted *tree.Rooted
	// local is the contraction's local fit of a model returned by
	// Contractor.Contract.
	local *localFit
}

var _ model.Model = (*Model)(nil)

// New returns a standard (zero mean, unit variance) Gaussian model
// on t rooted at root with every edge correlation set to rho.
func New(t *tree.Tree, root int, rho float64) (*Model, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if !t.Has(root) {
		return nil, fmt.Errorf("model: root %d is not a node of the tree", root)
	}
	n := t.MaxID()
	g := &Model{Tree: t, Root: root, Mean: make([]float64, n), Var: make([]float64, n), Rho: make([]float64, n)}
	for i := range g.Var {
		g.Var[i] = 1
		g.Rho[i] = rho
	}
	return g, g.validateParams()
}

// Rooted returns the tree oriented away from the root (cached).
func (g *Model) Rooted() *tree.Rooted {
	if g.rooted == nil || g.rooted.Root != g.Root {
		g.rooted = g.Tree.Root(g.Root)
	}
	return g.rooted
}

// Refresh discards cached derived data; call it after changing the tree.
func (g *Model) Refresh() { g.rooted = nil }

// Validate checks the model: positive finite variances, finite means, and
// correlations in [−1, 1].
func (g *Model) Validate() error {
	if g.Tree == nil {
		return errors.New("model: no tree")
	}
	if err := g.Tree.Validate(); err != nil {
		return err
	}
	return g.validateParams()
}

// validateParams is Validate without the tree's own validation.
func (g *Model) validateParams() error {
	t := g.Tree
	if !t.Has(g.Root) {
		return fmt.Errorf("model: root %d is not a node of the tree", g.Root)
	}
	n := t.MaxID()
	if len(g.Mean) < n || len(g.Var) < n || len(g.Rho) < n {
		return errors.New("model: Mean, Var and Rho must have one entry per node identifier")
	}
	for _, v := range t.Nodes() {
		if !(g.Var[v] > 0) || math.IsInf(g.Var[v], 0) {
			return fmt.Errorf("model: node %s has invalid variance %g", t.Name(v), g.Var[v])
		}
		if math.IsNaN(g.Mean[v]) || math.IsInf(g.Mean[v], 0) {
			return fmt.Errorf("model: node %s has invalid mean %g", t.Name(v), g.Mean[v])
		}
		if v != g.Root && !(math.Abs(g.Rho[v]) <= 1) {
			return fmt.Errorf("model: edge to %s has invalid correlation %g", t.Name(v), g.Rho[v])
		}
	}
	return nil
}

// Corr returns the correlation of nodes u and v: the product of the edge
// correlations on the path between them.
func (g *Model) Corr(u, v int) float64 {
	r := g.Rooted()
	p := g.Tree.Path(u, v)
	c := 1.0
	for k := 1; k < len(p); k++ {
		a, b := p[k-1], p[k]
		if r.Parent[b] == a {
			c *= g.Rho[b]
		} else {
			c *= g.Rho[a]
		}
	}
	return c
}

// Cov returns the covariance of nodes u and v.
func (g *Model) Cov(u, v int) float64 {
	return g.Corr(u, v) * math.Sqrt(g.Var[u]*g.Var[v])
}

// Correlations returns the correlation of node u with every node, indexed
// by node identifier (the product of the edge correlations along the
// path; zero for identifiers of removed nodes).
func (g *Model) Correlations(u int) []float64 { return g.correlations(u) }

// correlations returns the correlation of u with every node.
func (g *Model) correlations(u int) []float64 {
	r := g.Rooted()
	t := g.Tree
	out := make([]float64, t.MaxID())
	done := make([]bool, t.MaxID())
	out[u], done[u] = 1, true
	stack := []int{u}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, z := range t.Neighbors(w) {
			if done[z] {
				continue
			}
			rho := g.Rho[w]
			if r.Parent[z] == w {
				rho = g.Rho[z]
			}
			out[z], done[z] = out[w]*rho, true
			stack = append(stack, z)
		}
	}
	return out
}

// InformationDistance returns −log|ρ(u,v)|, the Gaussian information
// distance (Choi et al. 2011, eq. 5); +Inf for uncorrelated nodes.
func (g *Model) InformationDistance(u, v int) float64 {
	return gaussDist(g.Corr(u, v))
}

func gaussDist(rho float64) float64 {
	a := math.Abs(rho)
	if a == 0 {
		return math.Inf(1)
	}
	d := -math.Log(a)
	if d < 0 {
		d = 0
	}
	return d
}

// Distances returns the information distances between all pairs of the
// given nodes, row-major len(nodes)×len(nodes).
func (g *Model) Distances(nodes []int) []float64 {
	n := len(nodes)
	out := make([]float64, n*n)
	for i, u := range nodes {
		c := g.correlations(u)
		for j := i + 1; j < n; j++ {
			d := gaussDist(c[nodes[j]])
			out[i*n+j], out[j*n+i] = d, d
		}
	}
	return out
}

// Sample draws n independent rows of the observed variables, in the order of
// the tree's observed nodes (increasing identifier).
func (g *Model) Sample(src rand.Source, n int) (*data.Dataset, error) {
	if src == nil {
		return nil, model.ErrNoSource
	}
	rng := rand.New(src)
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errors.New("model: negative sample size")
	}
	r := g.Rooted()
	t := g.Tree
	z := make([][]float64, t.MaxID()) // standardised values
	for _, v := range r.Order {
		col := make([]float64, n)
		if v == g.Root {
			for i := range col {
				col[i] = rng.NormFloat64()
			}
		} else {
			p := z[r.Parent[v]]
			rho := g.Rho[v]
			s := math.Sqrt(math.Max(0, 1-rho*rho))
			for i := range col {
				col[i] = rho*p[i] + s*rng.NormFloat64()
			}
		}
		z[v] = col
	}
	obs := t.Observed()
	names := make([]string, len(obs))
	cols := make([][]float64, len(obs))
	for j, v := range obs {
		names[j] = t.Name(v)
		sd := math.Sqrt(g.Var[v])
		col := z[v]
		for i := range col {
			col[i] = g.Mean[v] + sd*col[i]
		}
		cols[j] = col
	}
	return data.FromContinuous(names, cols)
}

// Structure returns the model's tree.
func (g *Model) Structure() *tree.Tree { return g.Tree }

// RootNode returns the node at which the model is rooted.
func (g *Model) RootNode() int { return g.Root }

// Kind returns data.Continuous.
func (g *Model) Kind() data.Kind { return data.Continuous }

// NodeKind returns data.Continuous: every node of the model has that kind.
func (*Model) NodeKind(int) data.Kind { return data.Continuous }

// InformationDistances returns the exact information distances −log|ρ|
// between all pairs of the given nodes, row-major; an error for a node not
// in the tree or an invalid model.
func (g *Model) InformationDistances(nodes []int) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := model.CheckNodes(g.Tree, nodes); err != nil {
		return nil, err
	}
	return g.Distances(nodes), nil
}

// Conditionals returns the conditional mean and standard deviation of
// each given node in every row of d (Conditional).
func (g *Model) Conditionals(d *data.Dataset, nodes []int, opt model.InferOptions) ([]model.Conditional, error) {
	mean, sd, err := g.Conditional(d, nodes)
	if err != nil {
		return nil, err
	}
	out := make([]model.Conditional, len(nodes))
	for x, v := range nodes {
		out[x] = model.Conditional{Node: v, Name: g.Tree.Name(v), Mean: mean[x], SD: sd[x]}
	}
	return out, nil
}

// Impute fills every missing cell of d with its conditional mean given the
// observed cells of its row, and records each filled cell's conditional
// standard deviation.
func (g *Model) Impute(d *data.Dataset, opt model.ImputeOptions) (*model.Imputation, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	if err := model.CheckColumns(g.Tree, d.Names()); err != nil {
		return nil, err
	}
	cols, nodes, err := model.MissingColumns(g.Tree.Lookup, d)
	if err != nil {
		return nil, err
	}
	cond, err := g.Conditionals(d, nodes, opt.InferOptions)
	if err != nil {
		return nil, err
	}
	names := d.Names()
	out := make([][]float64, d.NumVars())
	for j := range out {
		if d.Var(j).Kind != data.Continuous {
			return nil, fmt.Errorf("model: column %q is discrete but the model's variable is continuous", names[j])
		}
		out[j] = append([]float64(nil), d.Continuous(j)...)
	}
	imp := &model.Imputation{}
	for x, j := range cols {
		c := &cond[x]
		for r, v := range d.Continuous(j) {
			if !math.IsNaN(v) {
				continue
			}
			out[j][r] = c.Mean[r]
			imp.Cells = append(imp.Cells, model.ImputedCell{Row: r, Column: j, Name: c.Name, Mean: c.Mean[r], SD: c.SD[r]})
		}
	}
	imp.Data, err = data.FromContinuous(names, out)
	if err != nil {
		return nil, err
	}
	return imp, nil
}
