package structure

import (
	"cmp"
	"math"
	"slices"

	"github.com/latentree/latentree/tree"
)

// branchReps returns, for every branch of u other than the one through
// away, up to k observed nodes of that branch nearest u in hops (stopping
// at observed nodes).
func branchReps(t *tree.Tree, u, away, k int) [][]int {
	var out [][]int
	for _, w := range t.Neighbors(u) {
		if w == away {
			continue
		}
		var reps []int
		type item struct{ v, from int }
		queue := []item{{w, u}}
		for len(queue) > 0 && len(reps) < k {
			it := queue[0]
			queue = queue[1:]
			if !t.IsHidden(it.v) {
				reps = append(reps, it.v)
				continue
			}
			for _, x := range t.Neighbors(it.v) {
				if x != it.from {
					queue = append(queue, item{x, it.v})
				}
			}
		}
		if len(reps) > 0 {
			out = append(out, reps)
		}
	}
	return out
}

// edgeEvidence estimates the length of the edge between hidden nodes u
// and v from the observed distances D (m×m) by averaging the four-point
// estimate ¼(D_ac + D_ad + D_bc + D_bd) − ½(D_ab + D_cd) over observed
// a, b in different branches on u's side and c, d on v's side. It returns
// the mean and its standard error (0 with a single quartet).
func edgeEvidence(t *tree.Tree, D []float64, m, u, v int) (mean, se float64, ok bool) {
	const perBranch, maxQuartets = 2, 100
	bu, bv := branchReps(t, u, v, perBranch), branchReps(t, v, u, perBranch)
	if len(bu) < 2 || len(bv) < 2 {
		return 0, 0, false
	}
	var sum, sq float64
	n := 0
	pairs := func(br [][]int, f func(a, b int) bool) {
		for x := 0; x < len(br); x++ {
			for y := x + 1; y < len(br); y++ {
				for _, a := range br[x] {
					for _, b := range br[y] {
						if !f(a, b) {
							return
						}
					}
				}
			}
		}
	}
	pairs(bu, func(a, b int) bool {
		pairs(bv, func(c, d int) bool {
			q := 0.25*(D[a*m+c]+D[a*m+d]+D[b*m+c]+D[b*m+d]) - 0.5*(D[a*m+b]+D[c*m+d])
			sum += q
			sq += q * q
			n++
			return n < maxQuartets
		})
		return n < maxQuartets
	})
	mean = sum / float64(n)
	if n > 1 {
		v := (sq - float64(n)*mean*mean) / float64(n-1)
		se = math.Sqrt(math.Max(0, v) / float64(n))
	}
	return mean, se, true
}

// collapseHidden contracts every edge between two hidden nodes whose
// length, re-estimated from many quartets of observed variables around it
// (edgeEvidence), is below eps, or within z standard errors of zero when z
// is positive: a learner that resolves a hidden node of high degree into a
// cascade of binary nodes leaves such edges of true length 0. Since the
// split of the observed variables an edge induces does not change when
// other edges are contracted, all edges are judged once. It returns the
// number of contractions.
func collapseHidden(t *tree.Tree, D []float64, m int, eps, z float64) int {
	type cand struct {
		u, v  int
		score float64
	}
	var cands []cand
	for _, e := range t.Edges() {
		if !t.IsHidden(e.U) || !t.IsHidden(e.V) {
			continue
		}
		mean, se, ok := edgeEvidence(t, D, m, e.U, e.V)
		if !ok {
			continue
		}
		if score := mean - math.Max(eps, z*se); score < 0 {
			cands = append(cands, cand{e.U, e.V, score})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.score, b.score) })
	merged := map[int]int{}
	find := func(x int) int {
		for {
			y, ok := merged[x]
			if !ok {
				return x
			}
			x = y
		}
	}
	count := 0
	for _, c := range cands {
		u, v := find(c.u), find(c.v)
		if u == v || !t.HasEdge(u, v) {
			continue
		}
		if err := t.Contract(u, v); err == nil {
			merged[v] = u
			count++
		}
	}
	return count
}
