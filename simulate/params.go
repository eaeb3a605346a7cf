package simulate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/tree"
)

// GaussianOptions configures Gaussian. The zero value draws edge
// correlations uniformly from [0.2, 0.8], as in Choi et al. (2011, §7.1).
type GaussianOptions struct {
	// RhoMin and RhoMax bound the edge correlations (both zero: 0.2, 0.8).
	RhoMin, RhoMax float64
	// RandomSign makes each correlation negative with probability ½.
	RandomSign bool
	// Root is the root node; negative or absent from the tree means a
	// hidden node of highest degree.
	Root *int
}

// errNoSource reports a nil source of randomness.
var errNoSource = errors.New("simulate: no source of randomness (nil rand.Source)")

// Gaussian returns a zero-mean, unit-variance Gaussian model on t whose
// edge correlations are drawn uniformly from [RhoMin, RhoMax]. Edge lengths
// of t are set to the exact information distances −log|ρ|.
func Gaussian(src rand.Source, t *tree.Tree, opt GaussianOptions) (*gaussian.Model, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	lo, hi := opt.RhoMin, opt.RhoMax
	if lo == 0 && hi == 0 {
		lo, hi = 0.2, 0.8
	}
	if !(lo > 0 && lo <= hi && hi <= 1) {
		return nil, fmt.Errorf("simulate: correlation range [%g, %g] must lie within (0, 1]", lo, hi)
	}
	root := model.DefaultRoot(t)
	if opt.Root != nil && t.Has(*opt.Root) {
		root = *opt.Root
	}
	g, err := gaussian.New(t, root, 1)
	if err != nil {
		return nil, err
	}
	r := g.Rooted()
	for _, v := range r.Order {
		if v == root {
			continue
		}
		rho := lo + (hi-lo)*rng.Float64()
		if opt.RandomSign && rng.IntN(2) == 1 {
			rho = -rho
		}
		g.Rho[v] = rho
		if err := t.SetEdgeLength(v, r.Parent[v], -math.Log(math.Abs(rho))); err != nil {
			return nil, internalError(err) // v and its parent are adjacent
		}
	}
	return g, nil
}

// SymmetricOptions configures Symmetric.
type SymmetricOptions struct {
	// States is the number of states K of every variable (default 2).
	States int
	// ThetaMin and ThetaMax bound the crossover probability θ of each
	// edge, drawn uniformly; both zero means [0.05, 0.2]. θ < 1/K.
	ThetaMin, ThetaMax float64
	// Root as in GaussianOptions.
	Root *int
}

// Symmetric returns a symmetric discrete model on t: every variable has K
// states, the root is uniform, and each edge keeps the parent's state with
// probability 1−(K−1)θ and moves to each other state with probability θ
// (Choi et al. 2011, §3.1). Edge lengths of t are set to the exact
// information distances −(K−1) log(1−Kθ).
func Symmetric(src rand.Source, t *tree.Tree, opt SymmetricOptions) (*discrete.Model, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	k := opt.States
	if k == 0 {
		k = 2
	}
	if k < 2 {
		return nil, fmt.Errorf("simulate: a symmetric model needs at least 2 states, got %d", k)
	}
	lo, hi := opt.ThetaMin, opt.ThetaMax
	if lo == 0 && hi == 0 {
		lo, hi = 0.05, 0.2
		if hi >= 1/float64(k) {
			hi = 0.8 / float64(k)
			lo = math.Min(lo, hi/2)
		}
	}
	if !(lo > 0 && lo <= hi && hi < 1/float64(k)) {
		return nil, fmt.Errorf("simulate: crossover range [%g, %g] must lie within (0, 1/K) = (0, %g)", lo, hi, 1/float64(k))
	}
	root := model.DefaultRoot(t)
	if opt.Root != nil && t.Has(*opt.Root) {
		root = *opt.Root
	}
	states := make([]int, t.MaxID())
	for i := range states {
		states[i] = k
	}
	m, err := discrete.New(t, root, states)
	if err != nil {
		return nil, err
	}
	r := m.Rooted()
	for _, v := range r.Order {
		if v == root {
			continue
		}
		theta := lo + (hi-lo)*rng.Float64()
		cpt := m.CPT[v]
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				if a == b {
					cpt[a*k+b] = 1 - float64(k-1)*theta
				} else {
					cpt[a*k+b] = theta
				}
			}
		}
		if err := t.SetEdgeLength(v, r.Parent[v], -float64(k-1)*math.Log(1-float64(k)*theta)); err != nil {
			return nil, internalError(err) // v and its parent are adjacent
		}
	}
	return m, nil
}

// CPTScheme selects how General draws conditional probability tables.
type CPTScheme int

const (
	// Dirichlet draws every CPT row from a symmetric Dirichlet
	// distribution with parameter Alpha, with Diagonal added to the
	// concentration of the "same state" entry so that neighbours are
	// strongly dependent.
	Dirichlet CPTScheme = iota
	// Perturbed is the scheme of Ishteva et al. (2013, §6.1): start from a
	// deterministic relation between a hidden node and an observed child
	// (state s of the parent gives state s mod n of the child) and from
	// independence between two hidden nodes (uniform rows), then perturb
	// every row as P(i|b) ∝ P(i|b) + u_i with u_i ~ Uniform[0, Mu].
	Perturbed
)

// ParseCPTScheme returns the scheme with the given name: dirichlet or
// perturbed.
func ParseCPTScheme(s string) (CPTScheme, error) {
	switch s {
	case "dirichlet":
		return Dirichlet, nil
	case "perturbed":
		return Perturbed, nil
	}
	return 0, fmt.Errorf("simulate: unknown CPT scheme %q (want dirichlet or perturbed)", s)
}

// GeneralOptions configures General.
type GeneralOptions struct {
	// ObservedStates is the number of states n of every observed variable
	// (default 2).
	ObservedStates int
	// ObservedStatesOf, if set, gives the number of states of each
	// observed node (overriding ObservedStates where it returns a positive
	// number; at least 2).
	ObservedStatesOf func(node int) int
	// HiddenStates fixes the number of states of every hidden node when
	// positive; otherwise each hidden node draws its number of states
	// uniformly from [HiddenMin, HiddenMax] (default: ObservedStates).
	HiddenStates, HiddenMin, HiddenMax int
	// HiddenStatesOf, if set, gives the number of states of each hidden
	// node (overriding the above where it returns a positive number).
	HiddenStatesOf func(node int) int
	// Scheme selects how CPTs are drawn.
	Scheme CPTScheme
	// Alpha is the Dirichlet concentration (default 1) and Diagonal the
	// extra concentration on the diagonal (default 5·States) for Dirichlet.
	Alpha, Diagonal float64
	// Mu is the perturbation of the Perturbed scheme (default 0.5).
	Mu float64
	// Root as in GaussianOptions.
	Root *int
}

// General returns a discrete model on t with n-state observed variables
// (or as ObservedStatesOf says) and hidden variables whose numbers of
// states may differ from node to node.
// When every node has the same number of states, edge lengths of t are set
// to the exact information distances.
func General(src rand.Source, t *tree.Tree, opt GeneralOptions) (*discrete.Model, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	n := opt.ObservedStates
	if n == 0 {
		n = 2
	}
	if n < 2 {
		return nil, fmt.Errorf("simulate: observed variables need at least 2 states, got %d", n)
	}
	lo, hi := opt.HiddenMin, opt.HiddenMax
	if opt.HiddenStates > 0 {
		lo, hi = opt.HiddenStates, opt.HiddenStates
	}
	if lo == 0 && hi == 0 {
		lo, hi = n, n
	}
	if lo < 2 || hi < lo {
		return nil, fmt.Errorf("simulate: hidden state range [%d, %d] is invalid (need 2 ≤ min ≤ max)", lo, hi)
	}
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = 1
	}
	mu := opt.Mu
	if mu == 0 {
		mu = 0.5
	}
	if !(alpha > 0) || !(mu > 0) || opt.Diagonal < 0 {
		return nil, errors.New("simulate: Alpha and Mu must be positive and Diagonal non-negative")
	}
	root := model.DefaultRoot(t)
	if opt.Root != nil && t.Has(*opt.Root) {
		root = *opt.Root
	}
	states := make([]int, t.MaxID())
	same := true
	for _, v := range t.Nodes() {
		if t.IsHidden(v) {
			states[v] = lo + rng.IntN(hi-lo+1)
			if opt.HiddenStatesOf != nil {
				if k := opt.HiddenStatesOf(v); k > 0 {
					states[v] = k
				}
			}
		} else {
			states[v] = n
			if opt.ObservedStatesOf != nil {
				if k := opt.ObservedStatesOf(v); k > 0 {
					if k < 2 {
						return nil, fmt.Errorf("simulate: observed variable %s needs at least 2 states, got %d", t.Name(v), k)
					}
					states[v] = k
				}
			}
		}
		same = same && states[v] == n
	}
	m, err := discrete.New(t, root, states)
	if err != nil {
		return nil, err
	}
	r := m.Rooted()
	for _, v := range r.Order {
		k := states[v]
		if v == root {
			if opt.Scheme == Perturbed {
				perturb(rng, m.Prior, 1, k, mu)
			} else {
				dirichletRow(rng, m.Prior, alpha, -1, 0)
			}
			continue
		}
		p := r.Parent[v]
		kp := states[p]
		cpt := m.CPT[v]
		for a := 0; a < kp; a++ {
			row := cpt[a*k : (a+1)*k]
			switch opt.Scheme {
			case Perturbed:
				clear(row)
				if t.IsHidden(p) && t.IsHidden(v) {
					for b := range row {
						row[b] = 1 / float64(k)
					}
				} else {
					row[a%k] = 1
				}
			default:
				diag := opt.Diagonal
				if diag == 0 {
					diag = 5 * float64(k)
				}
				dirichletRow(rng, row, alpha, a%k, diag)
			}
		}
		if opt.Scheme == Perturbed {
			perturb(rng, cpt, kp, k, mu)
		}
	}
	if same {
		if err := setDistances(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// perturb replaces each row p of a rows×k table with (p + u)/Σ(p + u),
// u_i ~ Uniform[0, mu] independently.
func perturb(rng *rand.Rand, p []float64, rows, k int, mu float64) {
	for a := 0; a < rows; a++ {
		row := p[a*k : (a+1)*k]
		s := 0.0
		for b := range row {
			row[b] += mu * rng.Float64()
			s += row[b]
		}
		for b := range row {
			row[b] /= s
		}
	}
}

// dirichletRow fills row with a Dirichlet draw of concentration alpha,
// plus extra on entry diag (if diag ≥ 0).
func dirichletRow(rng *rand.Rand, row []float64, alpha float64, diag int, extra float64) {
	for {
		s := 0.0
		for b := range row {
			a := alpha
			if b == diag {
				a += extra
			}
			row[b] = gamma(rng, a)
			s += row[b]
		}
		if s > 0 {
			for b := range row {
				row[b] /= s
			}
			return
		}
	}
}

// gamma draws from Gamma(a, 1) by the method of Marsaglia and Tsang
// (2000), with the usual boost for a < 1.
func gamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := rng.Float64()
		return gamma(rng, a+1) * math.Pow(u, 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// setDistances sets every edge length of the model's tree to the exact
// information distance between its endpoints. A distance that is undefined
// (a state of probability 0) leaves the length unknown (NaN), which is
// what NaN lengths mean, rather than failing the simulation.
func setDistances(m *discrete.Model) error {
	lengths := m.EdgeDistances() // NaN where undefined
	for i, e := range m.Tree.Edges() {
		if err := m.Tree.SetEdgeLength(e.U, e.V, lengths[i]); err != nil {
			return internalError(err) // an edge of the tree
		}
	}
	return nil
}

// internalError reports a broken invariant (see tree.ErrInternal).
func internalError(err error) error {
	return fmt.Errorf("simulate: %w: %w", tree.ErrInternal, err)
}
