package mixed

import (
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Model is a conditional-Gaussian latent tree (Lauritzen & Wermuth 1989):
// every node, observed or hidden, is discrete or continuous; the tree is
// rooted at Root, and no discrete node has a continuous parent, so the
// discrete nodes form a connected subtree that holds the root whenever
// there is a discrete node.
//
// Parameters, per node v (indexed by tree node identifier):
//   - discrete root: Prior (len States[Root]);
//   - discrete v with its (discrete) parent p: CPT[v][a*States[v]+b] =
//     P(v = b | p = a);
//   - continuous v with discrete parent p: v | p = a ~ N(Mean[v][a],
//     Var[v][a]) (len States[p] each);
//   - continuous v with continuous parent p: v = Mean[v][0] + Coef[v]·p +
//     N(0, Var[v][0]);
//   - continuous root: N(Mean[Root][0], Var[Root][0]).
//
// A continuous hidden node's location and scale are not identified; fitted
// models keep its marginal mean 0 and variance 1 (NumParams counts
// accordingly).
type Model struct {
	Tree *tree.Tree
	Root int
	// Kinds[v] is the kind of node v (data.Discrete or data.Continuous).
	Kinds []data.Kind
	// States[v] is the number of states of discrete node v (0 for a
	// continuous one).
	States []int
	// Labels[v] are the state labels of discrete observed node v; nil means
	// "0", "1", ..., States[v]-1.
	Labels [][]string
	// Prior is the distribution of a discrete root (nil for a continuous
	// root).
	Prior []float64
	// CPT[v] is P(v | parent) of discrete node v other than the root.
	CPT [][]float64
	// Mean, Var and Coef are the parameters of continuous nodes (see
	// Model).
	Mean, Var [][]float64
	Coef      []float64

	rooted *tree.Rooted
}

var _ model.Model = (*Model)(nil)

// Rooted returns the tree oriented away from the root (cached; call
// Refresh after changing the tree or the root).
func (m *Model) Rooted() *tree.Rooted {
	if m.rooted == nil || m.rooted.Root != m.Root {
		m.rooted = m.Tree.Root(m.Root)
	}
	return m.rooted
}

// Refresh discards cached derived data.
func (m *Model) Refresh() { m.rooted = nil }

// Structure returns the model's tree.
func (m *Model) Structure() *tree.Tree { return m.Tree }

// RootNode returns the root.
func (m *Model) RootNode() int { return m.Root }

// Kind returns data.Mixed.
func (m *Model) Kind() data.Kind { return data.Mixed }

// NodeKind returns the kind of node v.
func (m *Model) NodeKind(v int) data.Kind { return m.Kinds[v] }

// Layout assigns a kind to every hidden node of t and chooses a root, given
// the kinds of the observed nodes (kind reports the kind of an observed
// node by its name). A hidden node is continuous when all its branches but
// at most one hold only continuous observed nodes (with
// allDiscreteHidden, never); otherwise it is discrete. The root is the
// first discrete hidden node, else the first discrete node, else the first
// hidden node, else the first node. Layout fails, naming the node, when an
// observed continuous node lies on the path between two discrete nodes: no
// orientation then keeps discrete nodes above continuous ones.
func Layout(t *tree.Tree, kind func(name string) (data.Kind, bool), allDiscreteHidden bool) (kinds []data.Kind, root int, err error) {
	if err := t.Validate(); err != nil {
		return nil, 0, err
	}
	kinds = make([]data.Kind, t.MaxID())
	nodes := t.Nodes()
	if len(nodes) == 0 {
		return nil, 0, errors.New("model: empty tree")
	}
	disc := make([]bool, t.MaxID()) // observed discrete
	anyDisc := false
	for _, v := range t.Observed() {
		k, ok := kind(t.Name(v))
		if !ok {
			return nil, 0, fmt.Errorf("model: no kind for observed variable %q", t.Name(v))
		}
		if k != data.Discrete && k != data.Continuous {
			return nil, 0, fmt.Errorf("model: variable %q has kind %v", t.Name(v), k)
		}
		kinds[v] = k
		disc[v] = k == data.Discrete
		anyDisc = anyDisc || disc[v]
	}
	_, branchesWithDisc := discreteBranches(t, disc)
	for _, v := range t.Hidden() {
		if allDiscreteHidden || branchesWithDisc(v) >= 2 {
			kinds[v] = data.Discrete
		} else {
			kinds[v] = data.Continuous
		}
	}
	if anyDisc {
		for _, v := range t.Observed() {
			if kinds[v] == data.Continuous && branchesWithDisc(v) >= 2 {
				return nil, 0, fmt.Errorf("model: continuous variable %q lies between discrete variables in the tree; a discrete node cannot have a continuous parent (give it a discrete hidden parent, or use a structure whose continuous variables are not on paths between discrete ones)", t.Name(v))
			}
		}
	}
	root = -1
	for _, pick := range []func(v int) bool{
		func(v int) bool { return t.IsHidden(v) && kinds[v] == data.Discrete },
		func(v int) bool { return kinds[v] == data.Discrete },
		func(v int) bool { return t.IsHidden(v) },
		func(int) bool { return true },
	} {
		for _, v := range nodes {
			if pick(v) {
				root = v
				break
			}
		}
		if root >= 0 {
			break
		}
	}
	return kinds, root, nil
}

// New returns a model on t rooted at root with the given node kinds and
// numbers of states (States[v] > 0 for discrete nodes, ignored for
// continuous ones) and neutral parameters: uniform prior and CPTs,
// continuous nodes N(0, 1) under every parent state, coefficients 0. It
// fails when the kinds break the rule that no discrete node has a
// continuous parent.
func New(t *tree.Tree, root int, kinds []data.Kind, states []int) (*Model, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	n := t.MaxID()
	if !t.Has(root) {
		return nil, fmt.Errorf("model: root %d is not a node of the tree", root)
	}
	if len(kinds) != n || len(states) != n {
		return nil, fmt.Errorf("model: kinds and states need one entry per node identifier (%d)", n)
	}
	m := &Model{Tree: t, Root: root, Kinds: append([]data.Kind(nil), kinds...), States: make([]int, n),
		Labels: make([][]string, n), CPT: make([][]float64, n), Mean: make([][]float64, n), Var: make([][]float64, n), Coef: make([]float64, n)}
	r := m.Rooted()
	for _, v := range t.Nodes() {
		if kinds[v] == data.Discrete {
			if states[v] < 1 || states[v] > data.MaxStates {
				return nil, fmt.Errorf("model: discrete node %s has %d states", t.Name(v), states[v])
			}
			m.States[v] = states[v]
		}
	}
	for _, v := range r.Order {
		p := r.Parent[v]
		switch {
		case kinds[v] == data.Discrete && p < 0:
			m.Prior = uniform(m.States[v], 1)
		case kinds[v] == data.Discrete:
			if kinds[p] != data.Discrete {
				return nil, fmt.Errorf("model: discrete node %s has continuous parent %s", t.Name(v), t.Name(p))
			}
			m.CPT[v] = uniform(m.States[v], m.States[p])
		case p >= 0 && kinds[p] == data.Discrete:
			m.Mean[v], m.Var[v] = make([]float64, m.States[p]), ones(m.States[p])
		default:
			m.Mean[v], m.Var[v] = []float64{0}, []float64{1}
		}
	}
	return m, m.Validate()
}

func uniform(k, rows int) []float64 {
	p := make([]float64, k*rows)
	for i := range p {
		p[i] = 1 / float64(k)
	}
	return p
}

func ones(k int) []float64 {
	p := make([]float64, k)
	for i := range p {
		p[i] = 1
	}
	return p
}

// Validate checks the model: kinds (no discrete node under a continuous
// one), table sizes, probabilities (non-negative, rows summing to 1
// within 1e-9), finite means and coefficients, positive finite variances.
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
	n := t.MaxID()
	if len(m.Kinds) < n || len(m.States) < n || len(m.CPT) < n || len(m.Mean) < n || len(m.Var) < n || len(m.Coef) < n {
		return errors.New("model: Kinds, States, CPT, Mean, Var and Coef need one entry per node identifier")
	}
	r := m.Rooted()
	if len(r.Order) != t.NumNodes() {
		return errors.New("model: the tree is not connected")
	}
	for _, v := range r.Order {
		p := r.Parent[v]
		name := t.Name(v)
		switch m.Kinds[v] {
		case data.Discrete:
			k := m.States[v]
			if k < 1 || k > data.MaxStates {
				return fmt.Errorf("model: discrete node %s has %d states", name, k)
			}
			if !t.IsHidden(v) && len(m.Labels) > v && m.Labels[v] != nil && len(m.Labels[v]) != k {
				return fmt.Errorf("model: node %s has %d labels for %d states", name, len(m.Labels[v]), k)
			}
			if p < 0 {
				if err := checkDist(m.Prior, k, 1, "prior of "+name); err != nil {
					return err
				}
				continue
			}
			if m.Kinds[p] != data.Discrete {
				return fmt.Errorf("model: discrete node %s has continuous parent %s (a conditional-Gaussian tree allows no such edge)", name, t.Name(p))
			}
			if err := checkDist(m.CPT[v], k, m.States[p], "table of "+name); err != nil {
				return err
			}
		case data.Continuous:
			want := 1
			if p >= 0 && m.Kinds[p] == data.Discrete {
				want = m.States[p]
			}
			if len(m.Mean[v]) != want || len(m.Var[v]) != want {
				return fmt.Errorf("model: continuous node %s needs %d means and variances, has %d and %d", name, want, len(m.Mean[v]), len(m.Var[v]))
			}
			for a := range want {
				if math.IsNaN(m.Mean[v][a]) || math.IsInf(m.Mean[v][a], 0) {
					return fmt.Errorf("model: node %s has invalid mean %g", name, m.Mean[v][a])
				}
				if !(m.Var[v][a] > 0) || math.IsInf(m.Var[v][a], 0) {
					return fmt.Errorf("model: node %s has invalid variance %g", name, m.Var[v][a])
				}
			}
			if math.IsNaN(m.Coef[v]) || math.IsInf(m.Coef[v], 0) {
				return fmt.Errorf("model: node %s has invalid coefficient %g", name, m.Coef[v])
			}
		default:
			return fmt.Errorf("model: node %s has kind %v", name, m.Kinds[v])
		}
	}
	return nil
}

// checkDist checks rows distributions of k states each.
func checkDist(p []float64, k, rows int, what string) error {
	if len(p) != k*rows {
		return fmt.Errorf("model: %s has %d entries, want %d", what, len(p), k*rows)
	}
	for a := range rows {
		s := 0.0
		for _, x := range p[a*k : (a+1)*k] {
			if !(x >= 0) || x > 1 {
				return fmt.Errorf("model: %s has invalid probability %g", what, x)
			}
			s += x
		}
		if math.Abs(s-1) > 1e-9 {
			return fmt.Errorf("model: %s row %d sums to %g", what, a, s)
		}
	}
	return nil
}

// NumParams returns κ, the number of free parameters: k−1 for a discrete
// root, k_parent·(k−1) per other discrete node; for an observed continuous
// node 2 per parent state under a discrete parent, 3 under a continuous
// one, 2 as the root; for a hidden continuous node (mean 0 and variance 1
// fixed) 2·k_parent − 2 under a discrete parent, 1 under a continuous one,
// 0 as the root. An all-Gaussian model thus counts as gaussian.Model does.
func (m *Model) NumParams() int {
	r := m.Rooted()
	t := m.Tree
	n := 0
	for _, v := range r.Order {
		p := r.Parent[v]
		hidden := t.IsHidden(v)
		switch {
		case m.Kinds[v] == data.Discrete && p < 0:
			n += m.States[v] - 1
		case m.Kinds[v] == data.Discrete:
			n += m.States[p] * (m.States[v] - 1)
		case p >= 0 && m.Kinds[p] == data.Discrete:
			n += 2 * m.States[p]
			if hidden {
				n -= 2
			}
		case p >= 0:
			n += 3
			if hidden {
				n -= 2
			}
		case !hidden:
			n += 2
		}
	}
	return n
}
