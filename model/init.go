package model

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// Surrogates returns, for every node, the observed node nearest to it in
// the tree (by the sum of edge lengths, counting unknown lengths as 1; the
// node itself if observed). Choi et al. (2011, §5.2) call it the
// surrogate of a hidden node.
func (m *Discrete) Surrogates() []int { return Surrogates(m.Tree) }

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
	for {
		u := -1
		for _, v := range t.Nodes() {
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

// InitSurrogate sets the parameters from the data as if every hidden node
// were a copy of its surrogate: the CPT of an edge p → v is the empirical
// conditional distribution of v's surrogate given p's surrogate, mixed
// with the uniform distribution (weight mix, default 0.1 when 0) so that
// no probability is 0. A hidden node's states are matched to its
// surrogate's states modulo its number of states. This moment-based start
// puts EM near a good optimum at once.
func (m *Discrete) InitSurrogate(d *data.Dataset, mix float64) error {
	if mix == 0 {
		mix = 0.1
	}
	if mix < 0 || mix > 1 {
		return fmt.Errorf("model: mixing weight %g outside [0, 1]", mix)
	}
	b, err := m.bind(d)
	if err != nil {
		return err
	}
	sur := m.Surrogates()
	r := m.Rooted()
	// state of node v in row i as seen through its surrogate, or −1.
	state := func(v, i int) int {
		s := sur[v]
		c := b.codes[s][i]
		if c == data.Missing {
			return -1
		}
		return int(b.remap[s][c]) % m.States[v]
	}
	for _, v := range r.Order {
		k := m.States[v]
		if v == m.Root {
			cnt := make([]float64, k)
			for i := 0; i < b.rows; i++ {
				if x := state(v, i); x >= 0 {
					cnt[x]++
				}
			}
			mixInto(m.Prior, cnt, 1, k, mix)
			continue
		}
		p := r.Parent[v]
		kp := m.States[p]
		cnt := make([]float64, kp*k)
		for i := 0; i < b.rows; i++ {
			a, x := state(p, i), state(v, i)
			if a >= 0 && x >= 0 {
				cnt[a*k+x]++
			}
		}
		mixInto(m.CPT[v], cnt, kp, k, mix)
	}
	return nil
}

// mixInto sets each row of dst to (1−mix)·(normalised src row) + mix/k, or
// to uniform when the row has no counts.
func mixInto(dst, src []float64, rows, k int, mix float64) {
	for a := 0; a < rows; a++ {
		s := 0.0
		for x := 0; x < k; x++ {
			s += src[a*k+x]
		}
		for x := 0; x < k; x++ {
			if s > 0 {
				dst[a*k+x] = (1-mix)*src[a*k+x]/s + mix/float64(k)
			} else {
				dst[a*k+x] = 1 / float64(k)
			}
		}
	}
}
