package discrete

import (
	"math"
	"sort"
)

// Canonicalize puts the states of the model's hidden variables in a
// canonical order, so that fits that reach the same optimum from different
// starts (where EM may return the hidden states in any order: label
// switching) write the same model. The likelihood of every row is
// unchanged: only the names 0, 1, ... of hidden states move. The rule, in
// the order of the rooted tree (parents first):
//
//   - a hidden root's states by decreasing prior share;
//   - another hidden node's states aligned to its parent's (already
//     ordered): the pair (parent state a, state b) of largest joint
//     probability P(parent = a, node = b) is matched first, then the
//     largest among the unmatched states, and so on; the node's matched
//     states take the order of their parent states, and states left
//     unmatched (when the node has more states than its parent) follow
//     by decreasing share.
//
// Observed variables keep their labels. Exact ties keep the current order
// of the tied states. Standard errors held in SE move with their
// parameters. A root regression's coefficients (Regression) are
// re-referenced to the new state 0, and their standard errors
// (StdErrors.Beta) dropped when that state changes. model.Fit (for discrete data), FitSource and the learn
// entry points apply Canonicalize to every model they fit.
func (m *Model) Canonicalize() {
	r := m.Rooted()
	t := m.Tree
	marg := m.Marginals()
	for _, v := range r.Order {
		if !t.IsHidden(v) || m.States[v] < 2 {
			continue
		}
		var perm []int
		if v == m.Root {
			perm = byDecreasing(m.Prior)
		} else {
			perm = alignToParent(marg[r.Parent[v]], m.CPT[v], marg[v], m.States[r.Parent[v]], m.States[v])
		}
		m.permuteStates(v, perm)
		old := append([]float64(nil), marg[v]...)
		for i, p := range perm {
			marg[v][i] = old[p]
		}
	}
}

// byDecreasing returns the indices of p ordered by decreasing value (ties
// in index order).
func byDecreasing(p []float64) []int {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	return sortDecreasing(p, idx)
}

// sortDecreasing sorts the indices idx of p by decreasing value, stably.
func sortDecreasing(p []float64, idx []int) []int {
	sort.SliceStable(idx, func(i, j int) bool { return p[idx[i]] > p[idx[j]] })
	return idx
}

// alignToParent returns the order of a node's states (perm[i] is the state
// that becomes state i) aligned to its parent's states by greedy matching
// on the joint probabilities P(parent = a, node = b) = pm[a] cpt[a*k+b];
// see Canonicalize.
func alignToParent(pm, cpt, marg []float64, kp, k int) []int {
	matchOf := make([]int, kp) // parent state → node state, or −1
	for a := range matchOf {
		matchOf[a] = -1
	}
	usedB := make([]bool, k)
	for _, p := range greedyMatch(kp, k, func(a, b int) float64 { return pm[a] * cpt[a*k+b] }) {
		matchOf[p[0]], usedB[p[1]] = p[1], true
	}
	perm := make([]int, 0, k)
	for a := 0; a < kp; a++ {
		if matchOf[a] >= 0 {
			perm = append(perm, matchOf[a])
		}
	}
	var rest []int
	for b := 0; b < k; b++ {
		if !usedB[b] {
			rest = append(rest, b)
		}
	}
	return append(perm, sortDecreasing(marg, rest)...)
}

// greedyMatch matches min(na, nb) pairs (a, b), each a and each b at most
// once, by repeatedly taking the unmatched pair of largest score (the
// first in a-then-b order among ties); pairs whose scores are all NaN are
// matched in order.
func greedyMatch(na, nb int, score func(a, b int) float64) [][2]int {
	usedA, usedB := make([]bool, na), make([]bool, nb)
	var out [][2]int
	for range min(na, nb) {
		ba, bb, best := -1, -1, math.Inf(-1)
		for a := 0; a < na; a++ {
			if usedA[a] {
				continue
			}
			for b := 0; b < nb; b++ {
				if usedB[b] {
					continue
				}
				if x := score(a, b); ba < 0 && !math.IsNaN(x) || x > best {
					ba, bb, best = a, b, x
				}
			}
		}
		if ba < 0 { // only NaN scores left
			for a := 0; a < na; a++ {
				if usedA[a] {
					continue
				}
				for b := 0; b < nb; b++ {
					if !usedB[b] {
						ba, bb = a, b
						break
					}
				}
				break
			}
		}
		usedA[ba], usedB[bb] = true, true
		out = append(out, [2]int{ba, bb})
	}
	return out
}

// permuteStates renames node v's states: new state i is old state
// perm[i]. The prior (v the root) or the columns of v's CPT, the rows of
// its children's CPTs, its labels and the standard errors move with them.
func (m *Model) permuteStates(v int, perm []int) {
	identity := true
	for i, p := range perm {
		if p != i {
			identity = false
		}
	}
	if identity {
		return
	}
	permuteParams(m, m.Prior, m.CPT, v, perm)
	if v == m.Root && m.Regression != nil {
		var se []float64
		if m.SE != nil {
			se = m.SE.Beta
		}
		se = m.Regression.permute(perm, se)
		if m.SE != nil {
			m.SE.Beta = se
		}
	}
	if m.SE != nil {
		permuteParams(m, m.SE.Prior, m.SE.CPT, v, perm)
	}
	if v < len(m.Labels) && m.Labels[v] != nil {
		old := append([]string(nil), m.Labels[v]...)
		for i, p := range perm {
			m.Labels[v][i] = old[p]
		}
	}
}

// permuteParams applies permuteStates's renaming to prior and cpt, laid
// out as m's parameters (the parameters themselves or their standard
// errors).
func permuteParams(m *Model, prior []float64, cpt [][]float64, v int, perm []int) {
	r := m.Rooted()
	k := m.States[v]
	if v == m.Root {
		if len(prior) == k {
			old := append([]float64(nil), prior...)
			for i, p := range perm {
				prior[i] = old[p]
			}
		}
	} else if c := cpt[v]; c != nil {
		old := append([]float64(nil), c...)
		for a := 0; a < m.States[r.Parent[v]]; a++ {
			for i, p := range perm {
				c[a*k+i] = old[a*k+p]
			}
		}
	}
	for _, ch := range r.Children[v] {
		c := cpt[ch]
		if c == nil {
			continue
		}
		kc := m.States[ch]
		old := append([]float64(nil), c...)
		for i, p := range perm {
			copy(c[i*kc:(i+1)*kc], old[p*kc:(p+1)*kc])
		}
	}
}
