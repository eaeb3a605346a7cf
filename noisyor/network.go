package noisyor

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Child is an edge from a source to one of its effects.
type Child struct {
	// Effect is the effect's index in Network.Effects.
	Effect int
	// Failure is the probability f that the active source fails to turn
	// the effect on; an edge has Failure < 1.
	Failure float64
}

// Source is a hidden binary cause.
type Source struct {
	// Name is the source's name ("X1", ...); unique in its network.
	Name string
	// Prior is the probability that the source is on.
	Prior float64
	// Children are the source's edges, in increasing effect order.
	Children []Child
	// Learned records how a learner found the source; nil for a source
	// given by hand or simulated.
	Learned *Provenance
}

// Provenance says how the quartet learner found a source.
type Provenance struct {
	// Depth is the round of STRUCTURE-LEARN that found the source: 0 when
	// it has a singly-coupled quartet in the data as they are, d when d
	// rounds of subtracting off earlier sources were needed.
	Depth int
	// Quartet holds the indices of the four effects of the singly-coupled
	// quartet the source was found from.
	Quartet [4]int
	// Singular holds the third singular values of the quartet's three
	// unfoldings (ab|cd), (ac|bd), (ad|bc) after subtracting off the
	// sources of earlier rounds: all at most the rank-test threshold.
	Singular [3]float64
	// Pair is the two quartet members whose conditional PMI found the
	// other children (EXTEND).
	Pair [2]int
}

// Network is a bipartite noisy-or network.
type Network struct {
	// Effects are the names of the observed effects.
	Effects []string
	// Sources are the hidden causes.
	Sources []Source
	// Leak holds, per effect, the probability ν that the effect turns on
	// with no source active. Nil means no leaks.
	Leak []float64
}

// NumEffects returns the number of observed effects.
func (n *Network) NumEffects() int { return len(n.Effects) }

// NumSources returns the number of hidden sources.
func (n *Network) NumSources() int { return len(n.Sources) }

// NumEdges returns the number of source–effect edges.
func (n *Network) NumEdges() int {
	e := 0
	for _, s := range n.Sources {
		e += len(s.Children)
	}
	return e
}

// LeakOf returns the leak of effect a (0 when Leak is nil).
func (n *Network) LeakOf(a int) float64 {
	if n.Leak == nil {
		return 0
	}
	return n.Leak[a]
}

// Index returns the index of the effect with the given name.
func (n *Network) Index(name string) (int, bool) {
	i := slices.Index(n.Effects, name)
	return i, i >= 0
}

// Failure returns the failure probability of the edge from source s to
// effect a, and 1 when there is no such edge.
func (n *Network) Failure(s, a int) float64 {
	ch := n.Sources[s].Children
	i, ok := slices.BinarySearchFunc(ch, a, func(c Child, a int) int { return c.Effect - a })
	if !ok {
		return 1
	}
	return ch[i].Failure
}

// Validate reports whether the network is well formed: unique non-empty
// effect and source names, priors in (0, 1], failures in [0, 1), leaks in
// [0, 1), children in range, sorted and not repeated.
func (n *Network) Validate() error {
	if n == nil {
		return errors.New("noisyor: nil network")
	}
	m := len(n.Effects)
	seen := make(map[string]bool, m)
	for a, name := range n.Effects {
		if name == "" {
			return fmt.Errorf("noisyor: effect %d has no name", a)
		}
		if seen[name] {
			return fmt.Errorf("noisyor: effect name %q repeated", name)
		}
		seen[name] = true
	}
	if n.Leak != nil {
		if len(n.Leak) != m {
			return fmt.Errorf("noisyor: %d leaks for %d effects", len(n.Leak), m)
		}
		for a, v := range n.Leak {
			if !(v >= 0 && v < 1) {
				return fmt.Errorf("noisyor: leak of effect %q is %v, want [0, 1)", n.Effects[a], v)
			}
		}
	}
	names := make(map[string]bool, len(n.Sources))
	for i, s := range n.Sources {
		if s.Name == "" {
			return fmt.Errorf("noisyor: source %d has no name", i)
		}
		if names[s.Name] {
			return fmt.Errorf("noisyor: source name %q repeated", s.Name)
		}
		names[s.Name] = true
		if !(s.Prior > 0 && s.Prior <= 1) {
			return fmt.Errorf("noisyor: prior of source %q is %v, want (0, 1]", s.Name, s.Prior)
		}
		if p := s.Learned; p != nil {
			for _, a := range append(p.Quartet[:], p.Pair[:]...) {
				if a < 0 || a >= m {
					return fmt.Errorf("noisyor: source %q was learned from effect %d, out of range [0, %d)", s.Name, a, m)
				}
			}
		}
		prev := -1
		for _, c := range s.Children {
			if c.Effect < 0 || c.Effect >= m {
				return fmt.Errorf("noisyor: source %q has child %d out of range [0, %d)", s.Name, c.Effect, m)
			}
			if c.Effect <= prev {
				return fmt.Errorf("noisyor: children of source %q not in increasing effect order at %q", s.Name, n.Effects[c.Effect])
			}
			prev = c.Effect
			if !(c.Failure >= 0 && c.Failure < 1) {
				return fmt.Errorf("noisyor: failure of edge %s→%s is %v, want [0, 1)", s.Name, n.Effects[c.Effect], c.Failure)
			}
		}
	}
	return nil
}

// Clone returns a deep copy of n.
func (n *Network) Clone() *Network {
	c := &Network{
		Effects: slices.Clone(n.Effects),
		Leak:    slices.Clone(n.Leak),
		Sources: make([]Source, len(n.Sources)),
	}
	for i, s := range n.Sources {
		s.Children = slices.Clone(s.Children)
		if s.Learned != nil {
			p := *s.Learned
			s.Learned = &p
		}
		c.Sources[i] = s
	}
	return c
}

// Parent is one parent of an effect.
type Parent struct {
	Source  int
	Failure float64
}

// Parents returns, for every effect, its parents in increasing source
// order.
func (n *Network) Parents() [][]Parent {
	p := make([][]Parent, len(n.Effects))
	for s, src := range n.Sources {
		for _, c := range src.Children {
			p[c.Effect] = append(p[c.Effect], Parent{Source: s, Failure: c.Failure})
		}
	}
	return p
}

// NegMoment returns the probability that every effect in set is 0 (eq. 1
// of the paper): ∏_{a∈set}(1−ν_a) · ∏_X (1 − p_X + p_X ∏_{a∈set} f_{X,a}).
// The effects of set must be distinct.
func (n *Network) NegMoment(set []int) float64 {
	p := 1.0
	for _, a := range set {
		p *= 1 - n.LeakOf(a)
	}
	for s := range n.Sources {
		p *= n.sourceFactor(s, set)
	}
	return p
}

// sourceFactor returns 1 − p_X + p_X ∏_{a∈set} f_{X,a} for source s.
func (n *Network) sourceFactor(s int, set []int) float64 {
	src := &n.Sources[s]
	prod := 1.0
	for _, a := range set {
		prod *= n.Failure(s, a)
	}
	return 1 - src.Prior + src.Prior*prod
}

// Joint returns the joint distribution of the effects in set as a table of
// 2^len(set) probabilities: the index bit k (counting from the most
// significant, bit len(set)−1−k of the index) is the value of set[k], so
// the table is row-major over set[0], set[1], .... It is computed from the
// negative moments by inclusion–exclusion and is exact up to rounding.
// Sets of more than 30 effects are an error.
func (n *Network) Joint(set []int) ([]float64, error) {
	k := len(set)
	if k > 30 {
		return nil, fmt.Errorf("noisyor: joint of %d effects is too large", k)
	}
	t := make([]float64, 1<<k)
	sub := make([]int, 0, k)
	// t[mask] first holds N(S) for the set S of positions whose index bit
	// is 0 (bit 1 = "summed out").
	for mask := range t {
		sub = sub[:0]
		for i := range k {
			if mask&(1<<(k-1-i)) == 0 {
				sub = append(sub, set[i])
			}
		}
		t[mask] = n.NegMoment(sub)
	}
	NegToJoint(t, k)
	return t, nil
}

// NegToJoint converts, in place, a table of 2^k negative moments (index bit
// 0 = "is 0", 1 = "summed out", most significant bit first) into the joint
// distribution (bit 0 = "is 0", 1 = "is 1"): per mode, P(1) = P(·) − P(0).
func NegToJoint(t []float64, k int) {
	for i := range k {
		bit := 1 << i
		for mask := range t {
			if mask&bit != 0 {
				t[mask] -= t[mask^bit]
			}
		}
	}
}

// JointToNeg is the inverse of NegToJoint: per mode, P(·) = P(0) + P(1).
func JointToNeg(t []float64, k int) {
	for i := range k {
		bit := 1 << i
		for mask := range t {
			if mask&bit != 0 {
				t[mask] += t[mask^bit]
			}
		}
	}
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
