package spectral

import (
	"errors"
	"fmt"
	"slices"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// The tensor network of a spectral Model. Every hidden node of the tree,
// and every observed node with two or more neighbours, is a factor: a table
// over the representatives of its neighbours (and, for an observed node,
// over its own variable). Factors are linked along the tree's edges between
// them; an observed leaf is a mode of the factor it hangs from. A factor
// whose table would be too large is split into a chain of copies joined by
// edges of the same rank (the same distribution, Song et al. §4).

// maxFactorCells bounds the cells of one factor's table before it is split.
const maxFactorCells = 1 << 12

type modeKind uint8

const (
	modeParent modeKind = iota // the bond to the parent factor
	modeChild                  // the bond to a child factor
	modeLeaf                   // an observed variable's own value
)

// specMode is one mode of a factor's table: indexed by the states of the
// observed variable rep.
type specMode struct {
	kind  modeKind
	rep   int // observed tree node whose states index the mode
	child int // child factor (modeChild)
}

// specFactor is one node of the tensor network.
type specFactor struct {
	node   int // tree node, or −1 for a split copy
	copyOf int // for a split copy: the tree node it copies (else −1)
	parent int // parent factor, −1 for the root
	rank   int // the rank cap of the factor's variable: k′, or the states of an observed node
	modes  []specMode
	shape  []int
	table  []float64 // T: the joint table of the modes' representatives
	// For a non-root factor: the linker of the edge to the parent,
	// M[x_b*na+x_a] with b = the parent's representative in this direction
	// (rows) and a = modes[0].rep (columns); folded = M contracted into
	// table's mode 0, so that mode 0 is indexed by x_b.
	linker []float64
	pair   []float64 // P̂(x_a, x_b), na×nb, row-major
	folded []float64
	edge   EdgeSpectrum
}

// specNet is the network's shape.
type specNet struct {
	factors []specFactor
	order   []int // factors, parents before children
	root    int   // root factor
	states  []int // per tree node: states of observed nodes
	// leafOf[v] is the factor of which observed node v is a leaf mode
	// (for an observed factor: that factor, its own mode).
	leafOf []int
}

// buildNet lays out the tensor network of t; states[v] are the numbers of
// states of the observed nodes, k the rank of hidden nodes.
func buildNet(t *tree.Tree, states []int, k int) (*specNet, error) {
	if t.NumHidden() == 0 {
		return nil, errors.New("model: spectral parameters need a tree with hidden nodes (this tree has none; fit it with EM)")
	}
	g, err := newNetGraph(t, states, k)
	if err != nil {
		return nil, err
	}
	g.split()
	net, index := g.newFactors()
	rootNode := model.DefaultRoot(t)
	if index[rootNode] < 0 {
		for v := range index {
			if index[v] >= 0 {
				rootNode = v
				break
			}
		}
	}
	g.link(net, index, rootNode)
	n := g.n
	for f := range net.factors {
		fac := &net.factors[f]
		if fac.parent < 0 {
			continue
		}
		p := &net.factors[fac.parent]
		fac.edge.Parent, fac.edge.Child = g.name(nodeOrCopy(p.node, fac.parent, n, index)), g.name(nodeOrCopy(fac.node, f, n, index))
	}
	return net, nil
}

// netGraph is the graph buildNet lays the network out on: the tree's
// nodes (identifiers below n), then the copies made by split, each with
// its neighbours, whether it is hidden and its rank.
type netGraph struct {
	t      *tree.Tree
	states []int
	n      int
	adj    [][]int
	hidden []bool
	rank   []int
	alive  []bool // the tree has the node (identifiers below n)
	origin []int  // the tree node a graph node stands for
	memo   map[netDir]netNear
}

type netDir struct{ from, to int }
type netNear struct{ node, dist int }

func newNetGraph(t *tree.Tree, states []int, k int) (*netGraph, error) {
	n := t.MaxID()
	g := &netGraph{t: t, states: states, n: n, adj: make([][]int, n), hidden: make([]bool, n),
		rank: make([]int, n), alive: make([]bool, n), origin: make([]int, n), memo: map[netDir]netNear{}}
	for _, v := range t.Nodes() {
		g.alive[v] = true
		g.adj[v] = append([]int(nil), t.Neighbors(v)...)
		slices.Sort(g.adj[v])
		g.hidden[v] = t.IsHidden(v)
		if g.hidden[v] {
			if len(g.adj[v]) < 2 {
				return nil, fmt.Errorf("model: hidden node %s has %d neighbour(s); spectral parameters need at least 2", t.Name(v), len(g.adj[v]))
			}
			g.rank[v] = k
		} else {
			g.rank[v] = states[v]
		}
	}
	for v := range g.origin {
		g.origin[v] = v
	}
	return g, nil
}

func (g *netGraph) isFactor(v int) bool { return g.hidden[v] || len(g.adj[v]) >= 2 }

func (g *netGraph) name(v int) string {
	if v < g.n {
		return g.t.Name(v)
	}
	return fmt.Sprintf("(copy %d)", v-g.n+1)
}

// nearest returns the nearest observed node from from in direction to,
// and its distance: memoised over directed edges; ties go to the smaller
// node identifier.
func (g *netGraph) nearest(from, to int) netNear {
	if !g.hidden[to] {
		return netNear{to, 1}
	}
	if r, ok := g.memo[netDir{from, to}]; ok {
		return r
	}
	best := netNear{-1, 0}
	for _, w := range g.adj[to] {
		if w == from {
			continue
		}
		c := g.nearest(to, w)
		c.dist++
		if best.node < 0 || c.dist < best.dist || (c.dist == best.dist && c.node < best.node) {
			best = c
		}
	}
	g.memo[netDir{from, to}] = best
	return best
}

// cells is the size of v's factor table (stopping once above 2⁴⁰).
func (g *netGraph) cells(v int) int {
	c := 1
	if !g.hidden[v] {
		c = g.states[v]
	}
	for _, u := range g.adj[v] {
		c *= g.states[g.nearest(v, u).node]
		if c > 1<<40 {
			break
		}
	}
	return c
}

// split splits factors with too large tables into chains of copies.
func (g *netGraph) split() {
	for v := 0; v < len(g.adj); v++ {
		if v < g.n && !g.alive[v] {
			continue
		}
		if !g.isFactor(v) || g.cells(v) <= maxFactorCells {
			continue
		}
		keep := 2
		if !g.hidden[v] {
			keep = 1 // its own variable is the second mode
		}
		if len(g.adj[v]) <= keep+1 {
			continue // nothing to gain from splitting
		}
		c := len(g.adj)
		moved := append([]int(nil), g.adj[v][keep:]...)
		g.adj = append(g.adj, append(moved, v))
		g.origin = append(g.origin, g.origin[v])
		g.hidden = append(g.hidden, true)
		g.rank = append(g.rank, g.rank[v])
		g.adj[v] = append(g.adj[v][:keep:keep], c)
		for _, u := range moved {
			for i, w := range g.adj[u] {
				if w == v {
					g.adj[u][i] = c
				}
			}
		}
		slices.Sort(g.adj[c])
		clear(g.memo)
	}
}

// newFactors returns the network with a factor, not yet linked, for
// every graph node that is one, and each graph node's factor (−1: none).
func (g *netGraph) newFactors() (*specNet, []int) {
	n := g.n
	net := &specNet{states: g.states, leafOf: make([]int, n)}
	for i := range net.leafOf {
		net.leafOf[i] = -1
	}
	index := make([]int, len(g.adj))
	for v := range g.adj {
		index[v] = -1
		if (v >= n || g.alive[v]) && g.isFactor(v) {
			index[v] = len(net.factors)
			node := v
			if v >= n {
				node = -1
			}
			copyOf := -1
			if v >= n {
				copyOf = g.origin[v]
			}
			net.factors = append(net.factors, specFactor{node: node, copyOf: copyOf, parent: -1, rank: g.rank[v]})
		}
	}
	return net, index
}

// link roots the network at rootNode's factor and gives every factor its
// parent and modes, breadth-first from the root: parents before
// children.
func (g *netGraph) link(net *specNet, index []int, rootNode int) {
	net.root = index[rootNode]
	type item struct{ v, parent int }
	queue := []item{{rootNode, -1}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		f := index[it.v]
		fac := &net.factors[f]
		net.order = append(net.order, f)
		if it.parent >= 0 {
			fac.parent = index[it.parent]
			fac.modes = append(fac.modes, specMode{kind: modeParent, rep: g.nearest(it.v, it.parent).node})
		}
		if !g.hidden[it.v] {
			fac.modes = append(fac.modes, specMode{kind: modeLeaf, rep: it.v})
			net.leafOf[it.v] = f
		}
		for _, u := range g.adj[it.v] {
			if u == it.parent {
				continue
			}
			if index[u] >= 0 {
				fac.modes = append(fac.modes, specMode{kind: modeChild, rep: g.nearest(it.v, u).node, child: index[u]})
				queue = append(queue, item{u, it.v})
			} else {
				fac.modes = append(fac.modes, specMode{kind: modeLeaf, rep: u})
				net.leafOf[u] = f
			}
		}
		fac.shape = make([]int, len(fac.modes))
		for i, m := range fac.modes {
			fac.shape[i] = g.states[m.rep]
		}
	}
}

// nodeOrCopy returns a factor's tree node, or the graph index of a copy.
func nodeOrCopy(node, f, n int, index []int) int {
	if node >= 0 {
		return node
	}
	for v, x := range index {
		if x == f {
			return v
		}
	}
	return n
}

// childMode returns the index of the mode of factor p that bonds to child
// factor c.
func (net *specNet) childMode(p, c int) int {
	for i, m := range net.factors[p].modes {
		if m.kind == modeChild && m.child == c {
			return i
		}
	}
	return -1
}

// cellCount returns the number of cells of a table of the given shape.
func cellCount(shape []int) int {
	c := 1
	for _, s := range shape {
		c *= s
	}
	return c
}
