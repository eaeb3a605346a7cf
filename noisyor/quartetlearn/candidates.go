package quartetlearn

import (
	"math"
	"math/bits"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
)

// bitset is a set of effects.
type bitset []uint64

func newBitset(m int) bitset    { return make(bitset, (m+63)/64) }
func (s bitset) set(i int)      { s[i>>6] |= 1 << (i & 63) }
func (s bitset) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }
func (s bitset) clearBelow(i int) { // clears bits < i... used on copies
	w := i >> 6
	for k := 0; k < w && k < len(s); k++ {
		s[k] = 0
	}
	if w < len(s) {
		s[w] &^= 1<<(i&63) - 1
	}
}

// and writes x ∧ y into dst and reports whether it is non-empty.
func and(dst, x, y bitset) bool {
	var any uint64
	for k := range dst {
		dst[k] = x[k] & y[k]
		any |= dst[k]
	}
	return any != 0
}

// members calls fn for each element in increasing order.
func (s bitset) members(fn func(i int) bool) {
	for k, w := range s {
		for w != 0 {
			i := k<<6 + bits.TrailingZeros64(w)
			if !fn(i) {
				return
			}
			w &= w - 1
		}
	}
}

func (s bitset) count() int {
	c := 0
	for _, w := range s {
		c += bits.OnesCount64(w)
	}
	return c
}

// dependenceGraph links the pairs of effects whose negative moments, with
// the first upto learned sources subtracted off, show positive dependence:
// for exact moments PMI − 1 > tol; for data a one-sided z-test of the 2×2
// table's correlation, φ·√n > z. Two children of one source are always
// dependent (PMI > 1), so every singly-coupled quartet is a 4-clique.
func dependenceGraph(mo moments, learned *learnedIndex, upto int, exact bool, tol, z float64, workers int) []bitset {
	m := mo.numEffects()
	adj := make([]bitset, m)
	for a := range adj {
		adj[a] = newBitset(m)
	}
	parallel.For(workers, m, func(_, a int) {
		var t [4]float64
		set := []int{a, 0}
		for b := a + 1; b < m; b++ {
			set[1] = b
			n := mo.neg(set, t[:])
			if n == 0 {
				continue
			}
			learned.adjust(set, t[:], upto)
			na, nb, nab := t[1], t[2], t[0] // masks: 01 → a is 0; 10 → b is 0
			if !(na > 0 && nb > 0) || na >= 1 || nb >= 1 {
				continue
			}
			pmi := nab / (na * nb)
			if exact {
				if pmi-1 > tol {
					adj[a].set(b)
				}
				continue
			}
			cov := nab - na*nb
			phi := cov / math.Sqrt(na*(1-na)*nb*(1-nb))
			if pmi > 1 && phi*math.Sqrt(float64(n)) > z {
				adj[a].set(b)
			}
		}
	})
	for a := range m {
		adj[a].members(func(b int) bool {
			adj[b].set(a)
			return true
		})
	}
	return adj
}

// quartetKey is a sorted quartet of effects.
type quartetKey [4]int32

// cliques lists the 4-cliques of adj that contain at least one effect of
// anchors (all effects when anchors is nil), in a deterministic order. It
// stops and returns false once more than limit are found.
func cliques(adj []bitset, anchors bitset, limit int) ([]quartetKey, bool) {
	m := len(adj)
	var out []quartetKey
	nb := newBitset(m)
	nbc := newBitset(m)
	nbcd := newBitset(m)
	ok := true
	for a := 0; a < m && ok; a++ {
		if anchors != nil && !anchors.has(a) {
			continue
		}
		// Cliques whose smallest anchor is a: the other members are
		// neighbours of a that are not anchors smaller than a.
		copy(nb, adj[a])
		if anchors != nil {
			for k := range nb {
				lo := anchors[k]
				if k == a>>6 {
					lo &= 1<<(a&63) - 1
				} else if k > a>>6 {
					lo = 0
				}
				nb[k] &^= lo
			}
		} else {
			nb.clearBelow(a + 1)
		}
		nb.members(func(b int) bool {
			if !and(nbc, nb, adj[b]) {
				return true
			}
			nbc.clearBelow(b + 1)
			nbc.members(func(c int) bool {
				if !and(nbcd, nbc, adj[c]) {
					return true
				}
				nbcd.clearBelow(c + 1)
				nbcd.members(func(d int) bool {
					q := quartetKey{int32(a), int32(b), int32(c), int32(d)}
					slices.Sort(q[:])
					out = append(out, q)
					if len(out) > limit {
						ok = false
					}
					return ok
				})
				return ok
			})
			return ok
		})
	}
	if ok && anchors != nil {
		// Sorting makes the order independent of which anchor found it.
		slices.SortFunc(out, func(x, y quartetKey) int {
			for i := range 4 {
				if x[i] != y[i] {
					return int(x[i] - y[i])
				}
			}
			return 0
		})
	}
	return out, ok
}
