package model

import (
	"math"

	"github.com/latentree/latentree/tree"
)

// Surrogates returns, for every node of t, the observed node nearest to it
// (by the sum of edge lengths, counting unknown lengths as 1; the node
// itself if observed): the surrogate of a hidden node (Choi et al. 2011,
// §5.2), which the surrogate starts of discrete and Gaussian EM copy.
func Surrogates(t *tree.Tree) []int {
	n := t.MaxID()
	dist := make([]float64, n)
	sur := make([]int, n)
	for i := range dist {
		dist[i] = math.Inf(1)
		sur[i] = -1
	}
	// Multi-source Dijkstra from every observed node (trees are small:
	// a simple O(n²) selection is enough).
	done := make([]bool, n)
	for _, v := range t.Observed() {
		dist[v], sur[v] = 0, v
	}
	nodes := t.Nodes()
	for {
		u := -1
		for _, v := range nodes {
			if !done[v] && !math.IsInf(dist[v], 1) && (u < 0 || dist[v] < dist[u]) {
				u = v
			}
		}
		if u < 0 {
			return sur
		}
		done[u] = true
		for _, h := range t.Adjacent(u) {
			l := h.Length
			if math.IsNaN(l) || l < 0 {
				l = 1
			}
			if d := dist[u] + l; d < dist[h.To] {
				dist[h.To], sur[h.To] = d, sur[u]
			}
		}
	}
}
