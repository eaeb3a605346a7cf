package structure

import (
	"math"

	"github.com/latentree/latentree/tree"
)

// spanning returns, for the n×n row-major weight matrix w, the parent of
// every node in a minimum spanning tree rooted at node 0 (parent[0] = -1),
// by Prim's algorithm in O(n²), which beats any edge-list algorithm on a
// complete graph. If maximize, it finds a maximum spanning tree instead.
// Ties go to the smallest index; NaN weights are treated as +Inf (or −Inf
// when maximising), i.e. as the least attractive edges.
func spanning(n int, w []float64, maximize bool) []int {
	parent := make([]int, n)
	if n == 0 {
		return parent
	}
	best := make([]float64, n)
	in := make([]bool, n)
	sign := 1.0
	if maximize {
		sign = -1
	}
	key := func(x float64) float64 {
		if math.IsNaN(x) {
			return math.Inf(1)
		}
		return sign * x
	}
	for i := range best {
		best[i] = math.Inf(1)
		parent[i] = -1
	}
	in[0] = true
	for j := 1; j < n; j++ {
		best[j] = key(w[j])
		parent[j] = 0
	}
	for step := 1; step < n; step++ {
		u, bu := -1, math.Inf(1)
		for j := 0; j < n; j++ {
			if !in[j] && (u < 0 || less(best[j], bu)) {
				u, bu = j, best[j]
			}
		}
		in[u] = true
		row := w[u*n : (u+1)*n]
		for j := 0; j < n; j++ {
			if in[j] {
				continue
			}
			if k := key(row[j]); less(k, best[j]) || (!less(best[j], k) && u < parent[j]) {
				best[j], parent[j] = k, u
			}
		}
	}
	return parent
}

// less reports a < b by more than rounding (a relative 1e-12): weights
// that differ by less are ties, which spanning breaks towards the lower
// index, so that the tree does not depend on the last bits of the
// weights.
func less(a, b float64) bool {
	if math.IsInf(b, 1) {
		return !math.IsInf(a, 1)
	}
	return a < b-1e-12*math.Max(1, math.Abs(b))
}

// treeFromParents builds a tree of observed nodes named names with the
// edges (i, parent[i]) whose lengths are taken from d (n×n row-major).
func treeFromParents(names []string, parent []int, d []float64) (*tree.Tree, error) {
	n := len(names)
	t := tree.New()
	for _, name := range names {
		if _, err := t.AddObserved(name); err != nil {
			return nil, err
		}
	}
	for i, p := range parent {
		if p < 0 {
			continue
		}
		l := math.NaN()
		if d != nil {
			l = d[i*n+p]
		}
		if err := t.AddEdge(i, p, l); err != nil {
			return nil, err
		}
	}
	return t, nil
}
