package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// MixedOptions configures Mixed. The zero value makes 40% of the observed
// leaves continuous, gives discrete observed variables 2 to 5 states and
// discrete hidden ones 2, spaces the state means of each continuous node
// 1 to 3 standard deviations apart (drawn per node), draws correlations
// of continuous edges from [0.4, 0.8] and mixes 20% to 45% noise into the
// tables of discrete nodes. Edges are then rarely close to copies (of
// information distance below −log 0.9, which learning contracts), so the
// structure is learnable.
type MixedOptions struct {
	// Continuous is the share of observed leaves that are continuous
	// (0: 0.4; negative: none; at most 1), rounded to a whole number of
	// leaves. Observed internal nodes are discrete unless ContinuousHidden
	// makes them continuous.
	Continuous float64
	// ContinuousHidden is the number of hidden nodes to make continuous
	// by making every observed node below them (the tree seen from a
	// hidden node of highest degree) continuous; these count toward the
	// share, and as many are made as fit in it. Hidden nodes whose
	// branches but one are all continuous are continuous anyway
	// (mixed.Layout).
	ContinuousHidden int
	// Kinds, when not nil, gives the kind of every observed node by
	// identifier (data.Discrete or data.Continuous) instead of Continuous
	// and ContinuousHidden.
	Kinds []data.Kind
	// ObservedMin and ObservedMax bound the number of states of discrete
	// observed leaves, drawn uniformly (both 0: 2 and 5).
	ObservedMin, ObservedMax int
	// HiddenMin and HiddenMax bound the number of states of discrete
	// hidden nodes and of discrete observed internal nodes, which stand
	// where hidden nodes would (the information distances are additive
	// through binary ones), drawn uniformly (both 0: 2).
	HiddenMin, HiddenMax int
	// AllDiscreteHidden makes every hidden node discrete (see
	// mixed.Layout).
	AllDiscreteHidden bool
	// Separation is the typical distance between consecutive state means
	// of a continuous node with a discrete parent, in units of its
	// within-state standard deviation (0: 2): a node's means are
	// −(k−1)/2, ..., (k−1)/2 times its separation s standard deviations
	// around a centre, assigned to the parent's states in random order,
	// where s is drawn for each node uniformly from Separation·[1 −
	// SeparationSpread, 1 + SeparationSpread].
	Separation float64
	// SeparationSpread is the relative half-width of the range of the
	// per-node separations (0: ½, so 1 to 3 SDs around the default 2;
	// negative: none, every node is Separation apart; below 1). Real
	// variables differ in how strongly they depend on a class: a
	// separation of 1 SD (two classes overlap by most of their mass,
	// correlation ratio 0.45 under a balanced binary parent) is a
	// moderate effect and 3 SDs (ratio 0.83) a very strong one, and with
	// that range the information distance of a continuous node to its
	// discrete parent (about 0.18 to 0.80 under a balanced binary
	// parent) spans the same lengths as the other edges (discrete edges
	// with 20–45% noise, continuous ones of correlation 0.4 to 0.8: 0.22
	// to 0.92), so no kind of edge is systematically the shortest. One
	// separation for every node (the behaviour before this option, kept
	// by a negative spread) makes many nodes sit at exactly equal
	// distances from their parents, which real data do not do and which
	// leaves learners to break ties by sampling noise.
	SeparationSpread float64
	// RhoMin and RhoMax bound the correlation of a continuous node with
	// its continuous parent, drawn uniformly (0: 0.4 and 0.8
	// respectively).
	RhoMin, RhoMax float64
	// NoiseMin and NoiseMax bound the share λ of noise in the table of a
	// discrete node other than the root, drawn uniformly for each node (0:
	// 0.2 and 0.45 respectively): row a of the table is 1−λ on state a
	// mod k plus λ times a draw from a symmetric Dirichlet distribution of
	// concentration Alpha per state (0: 10). The root's prior is drawn
	// from that Dirichlet distribution too.
	NoiseMin, NoiseMax float64
	Alpha              float64
}

// Mixed returns a random conditional-Gaussian model on t (see package
// model/mixed). The observed nodes' kinds are drawn as MixedOptions says,
// the hidden nodes' kinds and the root come from mixed.Layout, and the
// parameters are drawn from the root down:
//   - discrete nodes as MixedOptions.NoiseMin says (the "same state" plus
//     Dirichlet noise);
//   - a continuous node with a discrete parent has state means spaced
//     its separation (drawn as MixedOptions.Separation says) within-state
//     standard deviations apart; an observed one
//     is centred at a point drawn from [−2, 2] with a standard deviation
//     drawn from [0.5, 2];
//   - a continuous node with a continuous parent has correlation ρ drawn
//     from [RhoMin, RhoMax] with it; an observed one has a marginal mean
//     drawn from [−2, 2] and a standard deviation from [0.5, 2];
//   - a continuous hidden node has marginal mean 0 and variance 1, as
//     mixed.Fit keeps them.
//
// The same source, tree and options give the same model. t's edge
// lengths are left as they are.
func Mixed(src rand.Source, t *tree.Tree, opt MixedOptions) (*mixed.Model, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	obsKind, err := o.observedKinds(rng, t)
	if err != nil {
		return nil, err
	}
	kinds, root, err := mixed.Layout(t, func(name string) (data.Kind, bool) {
		v, ok := t.Lookup(name)
		if !ok {
			return 0, false
		}
		return obsKind[v], true
	}, o.AllDiscreteHidden)
	if err != nil {
		return nil, err
	}
	states := make([]int, t.MaxID())
	for _, v := range t.Nodes() {
		if kinds[v] != data.Discrete {
			continue
		}
		if t.IsHidden(v) || t.Degree(v) > 1 {
			states[v] = o.HiddenMin + rng.IntN(o.HiddenMax-o.HiddenMin+1)
		} else {
			states[v] = o.ObservedMin + rng.IntN(o.ObservedMax-o.ObservedMin+1)
		}
	}
	cells := 0.0 // parameters, counted in float64 so that no product overflows
	for _, e := range t.Edges() {
		cells += float64(max(states[e.U], 1)) * float64(max(states[e.V], 1))
	}
	if cells > model.MaxModelCells {
		return nil, fmt.Errorf("simulate: these state counts make a model of %.3g parameters, more than the limit of %d (model.MaxModelCells); give fewer states", cells, model.MaxModelCells)
	}
	m, err := mixed.New(t, root, kinds, states)
	if err != nil {
		return nil, err
	}
	o.draw(rng, m)
	if err := m.Validate(); err != nil {
		return nil, internalError(err) // the draws keep the model valid
	}
	return m, nil
}

// RandomMixed returns a random mixed model (Mixed with opt) on a random
// minimal latent tree over leaves observed variables (RandomMinimal with
// topo; topo.ObservedInternalProb < 0 keeps every observed variable a
// leaf), both drawn from src.
func RandomMixed(src rand.Source, leaves int, topo MinimalOptions, opt MixedOptions) (*mixed.Model, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	t, err := RandomMinimal(rng, leaves, topo)
	if err != nil {
		return nil, err
	}
	return Mixed(rng, t, opt)
}

// withDefaults checks the options and fills in the defaults.
func (o MixedOptions) withDefaults() (MixedOptions, error) {
	switch {
	case o.Continuous == 0:
		o.Continuous = 0.4
	case o.Continuous < 0:
		o.Continuous = 0
	case !(o.Continuous <= 1):
		return o, fmt.Errorf("simulate: share of continuous leaves %g must be at most 1", o.Continuous)
	}
	if o.ObservedMin == 0 && o.ObservedMax == 0 {
		o.ObservedMin, o.ObservedMax = 2, 5
	}
	if o.HiddenMin == 0 && o.HiddenMax == 0 {
		o.HiddenMin, o.HiddenMax = 2, 2
	}
	if o.ObservedMin < 2 || o.ObservedMax < o.ObservedMin || o.ObservedMax > data.MaxStates {
		return o, fmt.Errorf("simulate: observed state range [%d, %d] is invalid (need 2 ≤ min ≤ max ≤ %d)", o.ObservedMin, o.ObservedMax, data.MaxStates)
	}
	if o.HiddenMin < 2 || o.HiddenMax < o.HiddenMin || o.HiddenMax > data.MaxStates {
		return o, fmt.Errorf("simulate: hidden state range [%d, %d] is invalid (need 2 ≤ min ≤ max ≤ %d)", o.HiddenMin, o.HiddenMax, data.MaxStates)
	}
	if o.Separation == 0 {
		o.Separation = 2
	}
	if !(o.Separation > 0) || math.IsInf(o.Separation, 0) {
		return o, fmt.Errorf("simulate: separation %g must be positive and finite", o.Separation)
	}
	switch {
	case o.SeparationSpread == 0:
		o.SeparationSpread = 0.5
	case o.SeparationSpread < 0:
		o.SeparationSpread = 0
	case !(o.SeparationSpread < 1):
		return o, fmt.Errorf("simulate: separation spread %g must be below 1 (separations Separation·[1−spread, 1+spread] must be positive)", o.SeparationSpread)
	}
	if o.RhoMin == 0 {
		o.RhoMin = 0.4
	}
	if o.RhoMax == 0 {
		o.RhoMax = 0.8
	}
	if !(o.RhoMin > 0 && o.RhoMin <= o.RhoMax && o.RhoMax < 1) {
		return o, fmt.Errorf("simulate: correlation range [%g, %g] must lie within (0, 1)", o.RhoMin, o.RhoMax)
	}
	if o.NoiseMin == 0 {
		o.NoiseMin = 0.2
	}
	if o.NoiseMax == 0 {
		o.NoiseMax = 0.45
	}
	if !(o.NoiseMin > 0 && o.NoiseMin <= o.NoiseMax && o.NoiseMax <= 1) {
		return o, fmt.Errorf("simulate: noise range [%g, %g] must lie within (0, 1]", o.NoiseMin, o.NoiseMax)
	}
	if o.Alpha == 0 {
		o.Alpha = 10
	}
	if !(o.Alpha > 0) || math.IsInf(o.Alpha, 0) {
		return o, fmt.Errorf("simulate: Alpha (%g) must be positive and finite", o.Alpha)
	}
	if o.ContinuousHidden < 0 {
		return o, fmt.Errorf("simulate: %d continuous hidden nodes: want 0 or more", o.ContinuousHidden)
	}
	return o, nil
}

// observedKinds returns the kind of every observed node of t (indexed by
// identifier): opt.Kinds, or subtrees made continuous for
// ContinuousHidden and then random leaves up to the share.
func (o MixedOptions) observedKinds(rng *rand.Rand, t *tree.Tree) ([]data.Kind, error) {
	kinds := make([]data.Kind, t.MaxID())
	if o.Kinds != nil {
		if len(o.Kinds) < t.MaxID() {
			return nil, fmt.Errorf("simulate: Kinds has %d entries, want one per node identifier (%d)", len(o.Kinds), t.MaxID())
		}
		for _, v := range t.Observed() {
			if k := o.Kinds[v]; k != data.Discrete && k != data.Continuous {
				return nil, fmt.Errorf("simulate: observed node %s has kind %v", t.Name(v), k)
			}
			kinds[v] = o.Kinds[v]
		}
		return kinds, nil
	}
	var leaves []int
	for _, v := range t.Observed() {
		if t.Degree(v) <= 1 {
			leaves = append(leaves, v)
		}
	}
	budget := int(math.Round(o.Continuous * float64(len(leaves))))
	if o.ContinuousHidden > 0 && budget > 0 {
		r := t.Root(model.DefaultRoot(t))
		hidden := t.Hidden()
		made := 0
		for _, i := range rng.Perm(len(hidden)) {
			h := hidden[i]
			if made == o.ContinuousHidden || h == r.Root {
				continue
			}
			var below []int // observed nodes under h not yet continuous
			leavesBelow := 0
			stack := []int{h}
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				stack = append(stack, r.Children[v]...)
				if t.IsHidden(v) || kinds[v] == data.Continuous {
					continue
				}
				below = append(below, v)
				if t.Degree(v) <= 1 {
					leavesBelow++
				}
			}
			if len(below) == 0 || leavesBelow > budget {
				continue
			}
			for _, v := range below {
				kinds[v] = data.Continuous
			}
			budget -= leavesBelow
			made++
		}
	}
	for _, i := range rng.Perm(len(leaves)) {
		if budget == 0 {
			break
		}
		if v := leaves[i]; kinds[v] != data.Continuous {
			kinds[v] = data.Continuous
			budget--
		}
	}
	return kinds, nil
}

// draw draws m's parameters from the root down (kinds and states set).
func (o MixedOptions) draw(rng *rand.Rand, m *mixed.Model) {
	t := m.Tree
	r := m.Rooted()
	// Marginals of the nodes drawn so far: state probabilities of a
	// discrete node, mean and variance of a continuous one.
	prob := make([][]float64, t.MaxID())
	mean := make([]float64, t.MaxID())
	vari := make([]float64, t.MaxID())
	unif := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	for _, v := range r.Order {
		p := r.Parent[v]
		if m.Kinds[v] == data.Discrete {
			k := m.States[v]
			if p < 0 {
				dirichletRow(rng, m.Prior, o.Alpha, -1, 0)
				prob[v] = append([]float64(nil), m.Prior...)
				continue
			}
			lambda := unif(o.NoiseMin, o.NoiseMax)
			prob[v] = make([]float64, k)
			for a := range m.States[p] {
				row := m.CPT[v][a*k : (a+1)*k]
				dirichletRow(rng, row, o.Alpha, -1, 0)
				for b := range row {
					row[b] *= lambda
				}
				row[a%k] += 1 - lambda
				for b, x := range row {
					prob[v][b] += prob[p][a] * x
				}
			}
			continue
		}
		hidden := t.IsHidden(v)
		centre, sd := 0.0, 1.0
		if !hidden {
			centre, sd = unif(-2, 2), unif(0.5, 2)
		}
		switch {
		case p >= 0 && m.Kinds[p] == data.Discrete:
			kp := m.States[p]
			sep := o.Separation
			if o.SeparationSpread > 0 { // (no draw without a spread: the models of fixed separations are as before)
				sep *= 1 + o.SeparationSpread*(2*rng.Float64()-1)
			}
			order := rng.Perm(kp)
			for a := range kp {
				m.Mean[v][a] = centre + sd*sep*(float64(order[a])-float64(kp-1)/2)
				m.Var[v][a] = sd * sd
			}
			mu, s2 := 0.0, 0.0
			for a, pa := range prob[p] {
				mu += pa * m.Mean[v][a]
				s2 += pa * (m.Var[v][a] + m.Mean[v][a]*m.Mean[v][a])
			}
			s2 -= mu * mu
			if hidden { // standardise: marginal mean 0, variance 1
				s := math.Sqrt(s2)
				for a := range kp {
					m.Mean[v][a] = (m.Mean[v][a] - mu) / s
					m.Var[v][a] /= s2
				}
				mu, s2 = 0, 1
			}
			mean[v], vari[v] = mu, s2
		case p >= 0:
			rho := unif(o.RhoMin, o.RhoMax)
			b := rho * sd / math.Sqrt(vari[p])
			m.Coef[v] = b
			m.Var[v][0] = sd * sd * (1 - rho*rho)
			m.Mean[v][0] = centre - b*mean[p]
			mean[v], vari[v] = centre, sd*sd
		default:
			m.Mean[v][0], m.Var[v][0] = centre, sd*sd
			mean[v], vari[v] = centre, sd*sd
		}
	}
}
