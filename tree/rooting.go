package tree

import (
	"math"
	"slices"
)

// Path returns the nodes on the path from u to v, both included. It returns
// nil if v cannot be reached from u.
func (t *Tree) Path(u, v int) []int {
	t.check(u)
	t.check(v)
	if u == v {
		return []int{u}
	}
	prev := make([]int, len(t.nodes))
	for i := range prev {
		prev[i] = -2
	}
	prev[u] = -1
	queue := []int{u}
	for len(queue) > 0 && prev[v] == -2 {
		x := queue[0]
		queue = queue[1:]
		for _, h := range t.adj[x] {
			if prev[h.To] == -2 {
				prev[h.To] = x
				queue = append(queue, h.To)
			}
		}
	}
	if prev[v] == -2 {
		return nil
	}
	var p []int
	for x := v; x != -1; x = prev[x] {
		p = append(p, x)
	}
	slices.Reverse(p)
	return p
}

// PathLength returns the sum of edge lengths on the path from u to v (NaN if
// a length on it is unknown, +Inf if v cannot be reached).
func (t *Tree) PathLength(u, v int) float64 {
	p := t.Path(u, v)
	if p == nil {
		return math.Inf(1)
	}
	s := 0.0
	for k := 1; k < len(p); k++ {
		l, _ := t.EdgeLength(p[k-1], p[k]) // consecutive nodes of a path are adjacent
		s += l
	}
	return s
}

// Rooted is a tree oriented away from a root, for message passing.
type Rooted struct {
	Root int
	// Parent[id] is the parent of node id, -1 for the root and for
	// identifiers that are not part of the tree.
	Parent []int
	// ParentLength[id] is the length of the edge from id to its parent.
	ParentLength []float64
	// Children[id] are the children of node id.
	Children [][]int
	// Order lists the nodes reachable from the root, parents before
	// children (breadth-first). Iterate it backwards for a post-order.
	Order []int
}

// Root orients the tree away from root. Nodes not connected to root are not
// in the result.
func (t *Tree) Root(root int) *Rooted {
	t.check(root)
	n := len(t.nodes)
	r := &Rooted{
		Root:         root,
		Parent:       make([]int, n),
		ParentLength: make([]float64, n),
		Children:     make([][]int, n),
		Order:        make([]int, 0, t.live),
	}
	for i := range r.Parent {
		r.Parent[i] = -1
		r.ParentLength[i] = math.NaN()
	}
	seen := make([]bool, n)
	seen[root] = true
	r.Order = append(r.Order, root)
	// One backing array for all lists of children (each capped at its
	// length, as Clone's adjacency lists): models root their tree often.
	buf := make([]int, 0, t.edges)
	for k := 0; k < len(r.Order); k++ {
		u := r.Order[k]
		start := len(buf)
		for _, h := range t.adj[u] {
			if seen[h.To] {
				continue
			}
			seen[h.To] = true
			r.Parent[h.To] = u
			r.ParentLength[h.To] = h.Length
			buf = append(buf, h.To)
			r.Order = append(r.Order, h.To)
		}
		if len(buf) > start {
			r.Children[u] = buf[start:len(buf):len(buf)]
		}
	}
	return r
}
