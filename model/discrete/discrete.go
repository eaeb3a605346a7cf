package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Model is a latent tree model over categorical variables.
//
// Slices indexed by node are indexed by the tree's node identifiers (length
// Tree.MaxID()); entries of removed identifiers are ignored.
type Model struct {
	// Tree is the structure. Observed nodes are the model's variables.
	Tree *tree.Tree
	// Root is the node at which the model is rooted.
	Root int
	// States[v] is the number of states of node v.
	States []int
	// Labels[v] are the state labels of observed node v; nil means
	// "0", "1", ..., States[v]-1.
	Labels [][]string
	// Prior is the distribution of the root, of length States[Root].
	Prior []float64
	// CPT[v], for v other than the root, is P(v | parent(v)) stored
	// row-major with one row per parent state: CPT[v][a*States[v]+b] =
	// P(v = b | parent = a). CPT[Root] is nil.
	CPT [][]float64
	// SE, when not nil, holds standard errors of Prior and CPT
	// (StandardErrors, Bootstrap); WriteJSON writes them and ReadJSON reads
	// them back. Nothing updates them when the parameters change: set SE
	// to nil after refitting.
	SE *StdErrors
	// Regression, when not nil, models the root's state given covariates
	// (columns of the data that are not variables of the model): each row
	// then has its own prior of the root, and Prior holds the mean of the
	// fitted rows' priors (the root's model-estimated state shares). The
	// model's data must then have the covariates' columns besides its
	// variables (inference on new rows uses them). FitEM fits it;
	// FitCovariates and FitWithCovariates add it to a model. Sample draws
	// the root from Prior: rows of the fitted population, not given
	// covariates; SampleCovariates draws it given each row's covariates.
	Regression *RootRegression

	rooted *tree.Rooted
	// local is the local fit the model was built from
	// (Contractor.Contract), or nil.
	local *Local
}

// New returns a model on t rooted at root whose nodes have the given
// numbers of states, with uniform prior and uniform CPTs. The tree is
// shared, not copied: do not change it while the model is in use.
func New(t *tree.Tree, root int, states []int) (*Model, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if !t.Has(root) {
		return nil, fmt.Errorf("model: root %d is not a node of the tree", root)
	}
	if len(states) != t.MaxID() {
		return nil, fmt.Errorf("model: %d state counts for %d node identifiers", len(states), t.MaxID())
	}
	m := &Model{Tree: t, Root: root, States: append([]int(nil), states...)}
	m.Labels = make([][]string, t.MaxID())
	m.CPT = make([][]float64, t.MaxID())
	r := m.Rooted()
	for _, v := range r.Order {
		k := states[v]
		if k < 1 || k > data.MaxStates {
			return nil, fmt.Errorf("model: node %s has %d states", t.Name(v), k)
		}
		if v == root {
			m.Prior = uniform(k)
			continue
		}
		kp := states[r.Parent[v]]
		cpt := make([]float64, kp*k)
		for i := range cpt {
			cpt[i] = 1 / float64(k)
		}
		m.CPT[v] = cpt
	}
	return m, nil
}

func uniform(k int) []float64 {
	p := make([]float64, k)
	for i := range p {
		p[i] = 1 / float64(k)
	}
	return p
}

// Rooted returns the tree oriented away from the root (computed once and
// cached; call Reroot or set the cache anew with Refresh after changing the
// tree).
func (m *Model) Rooted() *tree.Rooted {
	if m.rooted == nil || m.rooted.Root != m.Root {
		m.rooted = m.Tree.Root(m.Root)
	}
	return m.rooted
}

// Refresh discards cached derived data; call it after changing the tree.
func (m *Model) Refresh() { m.rooted = nil }

// StateLabels returns the labels of node v's states.
func (m *Model) StateLabels(v int) []string {
	if v < len(m.Labels) && m.Labels[v] != nil {
		return m.Labels[v]
	}
	out := make([]string, m.States[v])
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

const probTol = 1e-9

// roundTol is how far below 0 a probability may be and still count as
// round-off: a real parameter computed in floating point as a sum of
// differences can land at −1e-16 where the exact value is 0.
const roundTol = 1e-12

// Validate checks the model: a valid tree, positive state counts, a prior
// and CPT for every node of the right sizes whose rows are probability
// distributions (non-negative, summing to 1 within 1e-9). An entry no
// more than 1e-12 below 0 is round-off, not invalid input: Validate sets
// it to 0 and renormalises its row; anything further below 0, NaN or
// infinite is an error.
func (m *Model) Validate() error {
	if m.Tree == nil {
		return errors.New("model: no tree")
	}
	t := m.Tree
	if err := t.Validate(); err != nil {
		return err
	}
	if !t.Has(m.Root) {
		return fmt.Errorf("model: root %d is not a node of the tree", m.Root)
	}
	if len(m.States) < t.MaxID() || len(m.CPT) < t.MaxID() {
		return errors.New("model: States and CPT must have one entry per node identifier")
	}
	r := m.Rooted()
	for _, v := range r.Order {
		k := m.States[v]
		if k < 1 || k > data.MaxStates {
			return fmt.Errorf("model: node %s has %d states", t.Name(v), k)
		}
		if v < len(m.Labels) && m.Labels[v] != nil && len(m.Labels[v]) != k {
			return fmt.Errorf("model: node %s has %d states but %d labels", t.Name(v), k, len(m.Labels[v]))
		}
		if v == m.Root {
			if err := checkDist(m.Prior, 1, k); err != nil {
				return fmt.Errorf("model: prior of root %s: %w", t.Name(v), err)
			}
			if m.Regression != nil {
				if err := m.Regression.validate(k); err != nil {
					return err
				}
				for _, c := range m.Regression.Covariates {
					if _, ok := t.Lookup(c.Name); ok {
						return fmt.Errorf("model: covariate %q is also a node of the tree", c.Name)
					}
				}
			}
			continue
		}
		if err := checkDist(m.CPT[v], m.States[r.Parent[v]], k); err != nil {
			return fmt.Errorf("model: CPT of %s given %s: %w", t.Name(v), t.Name(r.Parent[v]), err)
		}
	}
	return nil
}

func checkDist(p []float64, rows, k int) error {
	if len(p) != rows*k {
		return fmt.Errorf("has %d entries, want %d×%d", len(p), rows, k)
	}
	for a := 0; a < rows; a++ {
		row := p[a*k : (a+1)*k]
		s, clamped := 0.0, false
		for b, x := range row {
			if x < 0 && x >= -roundTol {
				row[b], x, clamped = 0, 0, true
			}
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("row %d has invalid probability %g", a, x)
			}
			s += x
		}
		if math.Abs(s-1) > probTol {
			return fmt.Errorf("row %d sums to %g, not 1", a, s)
		}
		if clamped {
			for b := range row {
				row[b] /= s
			}
		}
	}
	return nil
}

// Marginals returns the exact marginal distribution of every node, indexed
// by node identifier.
func (m *Model) Marginals() [][]float64 {
	r := m.Rooted()
	out := make([][]float64, m.Tree.MaxID())
	for _, v := range r.Order {
		if v == m.Root {
			out[v] = append([]float64(nil), m.Prior...)
			continue
		}
		pm := out[r.Parent[v]]
		out[v] = matMul(pm, m.CPT[v], 1, len(pm), m.States[v])
	}
	return out
}

// matMul returns A·B for A r×s and B s×c, row-major (r = 1: a row
// vector times a matrix).
func matMul(a, b []float64, r, s, c int) []float64 {
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		oi := out[i*c : (i+1)*c]
		for l := 0; l < s; l++ {
			x := a[i*s+l]
			if x == 0 {
				continue
			}
			bl := b[l*c : (l+1)*c]
			for j, y := range bl {
				oi[j] += x * y
			}
		}
	}
	return out
}

// transitions computes, for a source node u, the conditional tables
// P(x_v | x_u) for every node v (row-major States[u]×States[v]).
func (m *Model) transitions(u int, marg [][]float64) [][]float64 {
	r := m.Rooted()
	t := m.Tree
	out := make([][]float64, t.MaxID())
	ku := m.States[u]
	id := make([]float64, ku*ku)
	for i := 0; i < ku; i++ {
		id[i*ku+i] = 1
	}
	out[u] = id
	stack := []int{u}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		kw := m.States[w]
		for _, z := range t.Neighbors(w) {
			if out[z] != nil {
				continue
			}
			out[z] = matMul(out[w], m.step(r, w, z, marg), ku, kw, m.States[z])
			stack = append(stack, z)
		}
	}
	return out
}

// Transition returns P(z | w) for adjacent nodes w and z, row-major
// States[w]×States[z]: z's CPT when z is w's child, its Bayes reversal
// P(w | z) P(z) / P(w) when z is w's parent. r is the model's rooting
// (Rooted) and marg its node marginals (Marginals). Down an edge the CPT
// itself is returned, not a copy.
func (m *Model) Transition(r *tree.Rooted, w, z int, marg [][]float64) []float64 {
	return m.step(r, w, z, marg)
}

// step returns P(z | w) for adjacent nodes w and z, row-major
// States[w]×States[z].
func (m *Model) step(r *tree.Rooted, w, z int, marg [][]float64) []float64 {
	if r.Parent[z] == w {
		return m.CPT[z]
	}
	// z is w's parent: P(z=a | w=b) = P(w=b|z=a) P(z=a) / P(w=b).
	kw, kz := m.States[w], m.States[z]
	step := make([]float64, kw*kz)
	cw := m.CPT[w]
	for b := 0; b < kw; b++ {
		if marg[w][b] <= 0 {
			continue
		}
		for a := 0; a < kz; a++ {
			step[b*kz+a] = cw[a*kw+b] * marg[z][a] / marg[w][b]
		}
	}
	return step
}

// nearTransition returns P(v | u) for nodes u ≠ v at most two edges apart,
// exactly as transitions computes it, or nil when they are further apart.
func (m *Model) nearTransition(r *tree.Rooted, u, v int, marg [][]float64) []float64 {
	t := m.Tree
	ku := m.States[u]
	id := make([]float64, ku*ku)
	for i := 0; i < ku; i++ {
		id[i*ku+i] = 1
	}
	if t.HasEdge(u, v) {
		return matMul(id, m.step(r, u, v, marg), ku, ku, m.States[v])
	}
	for _, x := range t.Neighbors(u) {
		if t.HasEdge(x, v) {
			kx := m.States[x]
			tx := matMul(id, m.step(r, u, x, marg), ku, ku, kx)
			return matMul(tx, m.step(r, x, v, marg), ku, kx, m.States[v])
		}
	}
	return nil
}

// PairMarginalsNear returns PairMarginal(u, v) for each pair of nodes at
// most two edges apart (nil for a pair further apart), computing the
// marginals once: in time linear in the tree's size plus the number of
// pairs, where calling PairMarginal per pair is quadratic.
func (m *Model) PairMarginalsNear(pairs [][2]int) [][]float64 {
	marg := m.Marginals()
	r := m.Rooted()
	out := make([][]float64, len(pairs))
	for i, p := range pairs {
		u, v := p[0], p[1]
		if u == v {
			out[i] = joint(marg[u], diagIdentity(m.States[u]), m.States[u])
			continue
		}
		if tr := m.nearTransition(r, u, v, marg); tr != nil {
			out[i] = joint(marg[u], tr, m.States[v])
		}
	}
	return out
}

func diagIdentity(k int) []float64 {
	id := make([]float64, k*k)
	for i := 0; i < k; i++ {
		id[i*k+i] = 1
	}
	return id
}

// PairMarginal returns the exact joint distribution of nodes u and v,
// row-major States[u]×States[v] (row = state of u). For u == v it is the
// diagonal matrix of u's marginal.
func (m *Model) PairMarginal(u, v int) []float64 {
	marg := m.Marginals()
	tr := m.transitions(u, marg)
	return joint(marg[u], tr[v], m.States[v])
}

func joint(pu, t []float64, kv int) []float64 {
	out := make([]float64, len(pu)*kv)
	for a, p := range pu {
		for b := 0; b < kv; b++ {
			out[a*kv+b] = p * t[a*kv+b]
		}
	}
	return out
}

// PairMarginals returns the exact joint distribution of every pair of the
// given nodes: out[i][j] is the table of nodes[i] and nodes[j] as in
// PairMarginal (out[i][i] the diagonal of the marginal).
func (m *Model) PairMarginals(nodes []int) [][][]float64 {
	marg := m.Marginals()
	out := make([][][]float64, len(nodes))
	for i, u := range nodes {
		tr := m.transitions(u, marg)
		out[i] = make([][]float64, len(nodes))
		for j, v := range nodes {
			out[i][j] = joint(marg[u], tr[v], m.States[v])
		}
	}
	return out
}

// Sample draws n independent rows of the observed variables, in the order
// of the tree's observed nodes (increasing identifier). Hidden variables are
// sampled but not returned; SampleAll returns them too.
func (m *Model) Sample(src rand.Source, n int) (*data.Dataset, error) {
	if src == nil {
		return nil, model.ErrNoSource
	}
	d, _, err := m.sample(rand.New(src), n, false, nil)
	return d, err
}

// SampleAll is Sample that also returns the states of every node, indexed
// by node identifier (nil for removed identifiers).
func (m *Model) SampleAll(src rand.Source, n int) (*data.Dataset, [][]uint16, error) {
	if src == nil {
		return nil, nil, model.ErrNoSource
	}
	return m.sample(rand.New(src), n, true, nil)
}

// SampleCovariates draws one row per row of x, whose columns hold the
// covariates of the root regression (Regression, required): the root's
// state from the regression's prior given the row's covariates (not from
// Prior), the other variables given their parents as in Sample. The rows
// hold the observed variables, in Sample's order, followed by x's columns.
func (m *Model) SampleCovariates(src rand.Source, x *data.Dataset) (*data.Dataset, error) {
	if src == nil {
		return nil, model.ErrNoSource
	}
	if m.Regression == nil {
		return nil, errors.New("model: sampling given covariates needs a root regression")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	design, err := m.Regression.Design(x)
	if err != nil {
		return nil, err
	}
	n := x.NumRows()
	d, _, err := m.sample(rand.New(src), n, false, m.Regression.priors(design, m.States[m.Root]))
	if err != nil {
		return nil, err
	}
	vars := append(d.Vars(), x.Vars()...)
	out, err := data.New(vars, n)
	if err != nil {
		return nil, err
	}
	for j, v := range vars {
		from, jj := d, j
		if j >= d.NumVars() {
			from, jj = x, j-d.NumVars()
		}
		if v.Kind == data.Discrete {
			copy(out.Discrete(j), from.Discrete(jj))
		} else {
			copy(out.Continuous(j), from.Continuous(jj))
		}
	}
	return out, nil
}

// sample draws n rows; rootPrior, when not nil, holds each row's prior of
// the root (n × States[Root]) in place of Prior.
func (m *Model) sample(rng *rand.Rand, n int, all bool, rootPrior []float64) (*data.Dataset, [][]uint16, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	if n < 0 {
		return nil, nil, errors.New("model: negative sample size")
	}
	r := m.Rooted()
	t := m.Tree
	states := make([][]uint16, t.MaxID())
	// Cumulative distributions, one row per parent state.
	for _, v := range r.Order {
		k := m.States[v]
		col := make([]uint16, n)
		if v == m.Root && rootPrior != nil {
			cum := cumulative(rootPrior, n, k)
			for i := range col {
				col[i] = draw(cum[i*k:(i+1)*k], rng.Float64())
			}
		} else if v == m.Root {
			cum := cumulative(m.Prior, 1, k)
			for i := range col {
				col[i] = draw(cum, rng.Float64())
			}
		} else {
			p := states[r.Parent[v]]
			cum := cumulative(m.CPT[v], m.States[r.Parent[v]], k)
			for i := range col {
				a := int(p[i])
				col[i] = draw(cum[a*k:(a+1)*k], rng.Float64())
			}
		}
		states[v] = col
	}
	obs := t.Observed()
	vars := make([]data.Variable, len(obs))
	cols := make([][]uint16, len(obs))
	for j, v := range obs {
		vars[j] = data.Variable{Name: t.Name(v), Kind: data.Discrete, States: m.StateLabels(v)}
		cols[j] = states[v]
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		return nil, nil, err
	}
	if !all {
		return d, nil, nil
	}
	return d, states, nil
}

func cumulative(p []float64, rows, k int) []float64 {
	c := make([]float64, rows*k)
	for a := 0; a < rows; a++ {
		s := 0.0
		for b := 0; b < k; b++ {
			s += p[a*k+b]
			c[a*k+b] = s
		}
		// Guard against rounding: the last state takes the remainder.
		for b := k - 1; b >= 0; b-- {
			if p[a*k+b] > 0 {
				c[a*k+b] = math.Inf(1)
				break
			}
		}
	}
	return c
}

func draw(cum []float64, u float64) uint16 {
	if len(cum) <= 8 {
		for b, c := range cum {
			if u < c {
				return uint16(b)
			}
		}
		return uint16(len(cum) - 1)
	}
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if u < cum[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return uint16(lo)
}
