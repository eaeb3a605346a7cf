package structure

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/tree"
)

// DefaultContract is the edge-contraction threshold ε′ = −log 0.9 used in
// all experiments of Choi et al. (2011, §7).
var DefaultContract = -math.Log(0.9)

// nj runs Saitou and Nei's neighbor joining on the n×n distance matrix d
// (row-major, finite, symmetric) over the nodes ids of t, adding hidden
// nodes to t. It returns the number of hidden nodes added.
//
// Ties in the Q criterion are broken by the order of the active list,
// which starts as ids and is updated deterministically.
func nj(t *tree.Tree, ids []int, d []float64) (int, error) {
	var ed edits
	n := len(ids)
	switch n {
	case 0, 1:
		return 0, nil
	case 2:
		ed.check(t.AddEdge(ids[0], ids[1], math.Max(0, d[1])))
		return 0, ed.err
	}
	// Work on a private copy; slots are reused as nodes are joined.
	D := make([]float64, n*n)
	copy(D, d)
	node := append([]int(nil), ids...)
	R := make([]float64, n)
	for i := 0; i < n; i++ {
		s := 0.0
		for k := 0; k < n; k++ {
			s += D[i*n+k]
		}
		R[i] = s
	}
	added := 0
	r := n // active slots are 0..r-1
	for r > 2 {
		// Find the pair minimising Q(i,j) = (r−2) d_ij − R_i − R_j.
		bi, bj := 0, 1
		best := math.Inf(1)
		rm2 := float64(r - 2)
		for i := 0; i < r; i++ {
			row := D[i*n : i*n+r]
			ri := R[i]
			for j := i + 1; j < r; j++ {
				q := rm2*row[j] - ri - R[j]
				if q < best {
					best, bi, bj = q, i, j
				}
			}
		}
		dij := D[bi*n+bj]
		li := 0.5*dij + (R[bi]-R[bj])/(2*rm2)
		li = math.Min(math.Max(li, 0), math.Max(dij, 0))
		lj := math.Max(dij-li, 0)
		h := t.AddHidden()
		added++
		ed.check(t.AddEdge(node[bi], h, li))
		ed.check(t.AddEdge(node[bj], h, lj))
		// The new node takes slot bi; slot bj is filled by the last slot.
		for k := 0; k < r; k++ {
			if k == bi || k == bj {
				continue
			}
			dik, djk := D[bi*n+k], D[bj*n+k]
			nd := 0.5 * (dik + djk - dij)
			if nd < 0 {
				nd = 0
			}
			R[k] += nd - dik - djk
			D[bi*n+k], D[k*n+bi] = nd, nd
		}
		node[bi] = h
		D[bi*n+bi] = 0
		last := r - 1
		if bj != last {
			for k := 0; k < r; k++ {
				D[bj*n+k] = D[last*n+k]
			}
			for k := 0; k < r; k++ {
				D[k*n+bj] = D[k*n+last]
			}
			D[bj*n+bj] = 0
			node[bj] = node[last]
			R[bj] = R[last]
		}
		r--
		s := 0.0
		for k := 0; k < r; k++ {
			s += D[bi*n+k]
		}
		R[bi] = s
	}
	ed.check(t.AddEdge(node[0], node[1], math.Max(0, D[1])))
	return added, ed.err
}

// contractShort contracts, shortest first, every edge between an observed
// node and a hidden node whose length is below eps: the hidden node merges
// into the observed node, which becomes internal (Choi et al. 2011, §6.2);
// and every edge between two hidden nodes shorter than epsHidden, merging
// them into one hidden node of higher degree (neighbor joining resolves a
// multifurcation into binary nodes joined by edges of length about 0). It
// returns the number of contractions.
func contractShort(t *tree.Tree, eps, epsHidden float64) (int, error) {
	count := 0
	for {
		bu, bh, best := -1, -1, math.Inf(1)
		for _, e := range t.Edges() {
			u, h := e.U, e.V
			hu, hh := t.IsHidden(u), t.IsHidden(h)
			var limit float64
			switch {
			case hu && hh:
				if epsHidden <= 0 {
					continue
				}
				limit = epsHidden
			case hu != hh:
				limit = eps
				if hu {
					u, h = h, u
				}
			default:
				continue
			}
			if e.Length < limit && e.Length-limit < best {
				best, bu, bh = e.Length-limit, u, h
			}
		}
		if bu < 0 {
			return count, nil
		}
		if err := t.Contract(bu, bh); err != nil {
			return count, fmt.Errorf("structure: %w: %w", tree.ErrInternal, err)
		}
		count++
	}
}
