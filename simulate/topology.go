package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/latentree/latentree/tree"
)

func obsName(k int) string { return "x" + strconv.Itoa(k) }

type builder struct {
	t    *tree.Tree
	next int
	err  error // the first failed edit (a broken invariant)
}

func (b *builder) observed() int {
	b.next++
	id, err := b.t.AddObserved(obsName(b.next))
	if err != nil && b.err == nil { // names x1, x2, ... are unique by construction
		b.err = fmt.Errorf("simulate: %w: %w", tree.ErrInternal, err)
	}
	return id
}

func (b *builder) edge(u, v int) {
	if err := b.t.AddEdge(u, v, math.NaN()); err != nil && b.err == nil {
		b.err = fmt.Errorf("simulate: %w: %w", tree.ErrInternal, err)
	}
}

// result returns the built tree, or the first failed edit.
func (b *builder) result() (*tree.Tree, error) {
	if b.err != nil {
		return nil, b.err
	}
	return b.t, nil
}

// Star returns a hidden node joined to m observed leaves (m ≥ 3).
func Star(m int) (*tree.Tree, error) {
	if m < 3 {
		return nil, fmt.Errorf("simulate: a star needs at least 3 leaves, got %d", m)
	}
	b := &builder{t: tree.New()}
	h := b.t.AddHidden()
	for i := 0; i < m; i++ {
		b.edge(h, b.observed())
	}
	return b.result()
}

// DoubleStar returns two adjacent hidden nodes with m1 and m2 observed
// leaves (both ≥ 2); DoubleStar(40, 40) is the double star of Choi et al.
// (2011, §7.1).
func DoubleStar(m1, m2 int) (*tree.Tree, error) {
	if m1 < 2 || m2 < 2 {
		return nil, fmt.Errorf("simulate: a double star needs at least 2 leaves per hidden node, got %d and %d", m1, m2)
	}
	b := &builder{t: tree.New()}
	h1, h2 := b.t.AddHidden(), b.t.AddHidden()
	b.edge(h1, h2)
	for i := 0; i < m1; i++ {
		b.edge(h1, b.observed())
	}
	for i := 0; i < m2; i++ {
		b.edge(h2, b.observed())
	}
	return b.result()
}

// HMM returns the HMM-like chain of Choi et al. (2011, §7.1): a path of
// hidden nodes, each with one observed child, plus one more observed
// variable at each end of the path, so that every hidden node has degree 3.
// HMM(78) has 78 hidden and 80 observed variables.
func HMM(hidden int) (*tree.Tree, error) {
	if hidden < 1 {
		return nil, fmt.Errorf("simulate: an HMM needs at least 1 hidden node, got %d", hidden)
	}
	b := &builder{t: tree.New()}
	first := b.observed()
	prev := first
	for i := 0; i < hidden; i++ {
		h := b.t.AddHidden()
		b.edge(prev, h)
		b.edge(h, b.observed())
		prev = h
	}
	b.edge(prev, b.observed())
	return b.result()
}

// CompleteKary returns the complete tree in which every internal node has
// degree k: an observed root with k children, every other internal node
// hidden with k−1 children, and observed leaves at the given depth.
// CompleteKary(5, 3) is the 5-complete tree of Choi et al. (2011, §7.1):
// 25 hidden and 81 observed variables.
func CompleteKary(k, depth int) (*tree.Tree, error) {
	if k < 3 || depth < 1 {
		return nil, fmt.Errorf("simulate: a complete tree needs degree ≥ 3 and depth ≥ 1, got %d and %d", k, depth)
	}
	size := 1.0
	for d, w := 0, float64(k); d < depth; d, w = d+1, w*float64(k-1) {
		size += w
	}
	if size > 1e7 {
		return nil, fmt.Errorf("simulate: complete tree with degree %d and depth %d is too large (%.0f nodes)", k, depth, size)
	}
	b := &builder{t: tree.New()}
	root := b.observed()
	level := []int{root}
	for d := 1; d <= depth; d++ {
		var next []int
		for _, p := range level {
			c := k - 1
			if p == root {
				c = k
			}
			for i := 0; i < c; i++ {
				var v int
				if d == depth {
					v = b.observed()
				} else {
					v = b.t.AddHidden()
				}
				b.edge(p, v)
				next = append(next, v)
			}
		}
		level = next
	}
	return b.result()
}

// RandomBinary returns a random binary latent tree over m observed leaves
// built by recursive splitting (Ishteva et al. 2013, §6.2): the variables,
// in random order, are split into a first part of round(β·n) variables
// (at least 1, at most n−1) and a second part of the rest; each split
// introduces a hidden node joining the two parts, recursively, until parts
// have one variable. The hidden node of the first split, which has degree
// two, is then removed, so every hidden node has degree 3. β near 0 or 1
// gives skewed trees with long hidden paths; β = 0.5 balanced ones.
func RandomBinary(src rand.Source, m int, beta float64) (*tree.Tree, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	if m < 3 {
		return nil, fmt.Errorf("simulate: a binary latent tree needs at least 3 observed variables, got %d", m)
	}
	if !(beta > 0 && beta < 1) {
		return nil, fmt.Errorf("simulate: split parameter β must be in (0, 1), got %g", beta)
	}
	b := &builder{t: tree.New()}
	leaves := make([]int, m)
	for i := range leaves {
		leaves[i] = b.observed()
	}
	rng.Shuffle(m, func(i, j int) { leaves[i], leaves[j] = leaves[j], leaves[i] })
	var build func(s []int) int
	build = func(s []int) int {
		if len(s) == 1 {
			return s[0]
		}
		n1 := int(math.Round(beta * float64(len(s))))
		n1 = max(1, min(len(s)-1, n1))
		h := b.t.AddHidden()
		b.edge(h, build(s[:n1]))
		b.edge(h, build(s[n1:]))
		return h
	}
	build(leaves)
	b.t.SuppressHidden()
	return b.result()
}

// MinimalOptions configures RandomMinimal. The zero value gives trees with
// hidden nodes of degree 3 to 5 and about a fifth of the hidden nodes
// replaced by observed ones.
type MinimalOptions struct {
	// MergeProb is the probability of contracting each hidden–hidden edge
	// of the initial binary tree, creating hidden nodes of higher degree.
	// Default 0.2; negative means 0.
	MergeProb float64
	// ObservedInternalProb is the probability with which each hidden node
	// is replaced by one of its observed leaf neighbours, making that
	// variable an internal node. Default 0.2; negative means 0.
	ObservedInternalProb float64
}

func prob(p, def float64) float64 {
	switch {
	case p == 0:
		return def
	case p < 0:
		return 0
	case p > 1:
		return 1
	}
	return p
}

// RandomMinimal returns a random minimal latent tree over m observed
// variables: every hidden node has degree at least 3 and observed variables
// may be internal nodes. It starts from a random binary tree (RandomBinary
// with β uniform in [0.2, 0.8]), contracts random hidden–hidden edges and
// then merges random hidden nodes into an adjacent observed leaf.
func RandomMinimal(src rand.Source, m int, opt MinimalOptions) (*tree.Tree, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	if m < 3 {
		return nil, fmt.Errorf("simulate: a latent tree needs at least 3 observed variables, got %d", m)
	}
	t, err := RandomBinary(rng, m, 0.2+0.6*rng.Float64())
	if err != nil {
		return nil, err
	}
	merge := prob(opt.MergeProb, 0.2)
	for _, e := range t.Edges() {
		if !t.Has(e.U) || !t.Has(e.V) || !t.IsHidden(e.U) || !t.IsHidden(e.V) || !t.HasEdge(e.U, e.V) {
			continue
		}
		if rng.Float64() < merge {
			if err := t.Contract(e.U, e.V); err != nil {
				return nil, err
			}
		}
	}
	internal := prob(opt.ObservedInternalProb, 0.2)
	for _, h := range t.Hidden() {
		if rng.Float64() >= internal {
			continue
		}
		var leaves []int
		for _, v := range t.Neighbors(h) {
			if !t.IsHidden(v) && t.Degree(v) == 1 {
				leaves = append(leaves, v)
			}
		}
		if len(leaves) == 0 {
			continue
		}
		if err := t.Contract(leaves[rng.IntN(len(leaves))], h); err != nil {
			return nil, err
		}
	}
	c, _ := t.Compact()
	return c, nil
}
