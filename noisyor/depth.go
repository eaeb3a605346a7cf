package noisyor

import (
	"math/bits"
	"runtime"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
)

// This file is the structural side of quartet learnability (Definition 1
// of the paper): which sources have a singly-coupled quartet of children,
// and after how many rounds of subtracting off the sources found earlier.
// It looks at the graph only, as if every test were perfect (infinite
// data), which is how the paper's Table 1 analyses aQMR-DT.

// QuartetDepths returns the structural quartet depth of every source of n,
// indexed like n.Sources. A set of children of source X is singly coupled
// when no other remaining source is a parent of two of them. Round 0 finds
// every source that has a singly-coupled quartet (four children) among all
// sources; those are removed, and round d finds the sources that have one
// among the sources not found in rounds 0..d−1. A source never found (for
// example, two sources that share all their children but one each) has
// depth −1. Every source has depth ≥ 0 exactly when the network is
// quartet-learnable; all have depth 0 when it is strongly quartet-learnable.
//
// The search is exact: for each source it looks for an independent set of
// size four in the graph on its children that joins two children sharing
// another remaining parent, by branch and bound with a clique-cover bound.
// Sources are examined in parallel; the result does not depend on
// GOMAXPROCS.
func QuartetDepths(n *Network) []int { return CoupledDepths(n, 4) }

// TripletDepths is QuartetDepths with singly-coupled triplets (three
// children): the depth at which a source's parameters can be learned when
// the structure is known (the "known structure" columns of the paper's
// Table 1, where one singly-coupled triplet and the CPMI extension learn
// all of a source's failures).
func TripletDepths(n *Network) []int { return CoupledDepths(n, 3) }

// CoupledDepths is QuartetDepths for singly-coupled sets of the given size
// (1 or more; size 4 gives quartets, 3 triplets). A source with fewer than
// size children has depth −1.
func CoupledDepths(n *Network, size int) []int {
	depth := make([]int, len(n.Sources))
	for i := range depth {
		depth[i] = -1
	}
	if size < 1 {
		return depth
	}
	c := newCoupler(n)
	removed := make([]bool, len(n.Sources))
	var cand []int
	for s, src := range n.Sources {
		if len(src.Children) >= size {
			cand = append(cand, s)
		}
	}
	for d := 0; len(cand) > 0; d++ {
		found := make([]bool, len(cand))
		parallel.ForState(runtime.GOMAXPROCS(0), len(cand), c.newScratch, func(sc *coupleScratch, i int) {
			found[i] = c.find(cand[i], size, removed, sc) != nil
		})
		var rest []int
		for i, s := range cand {
			if found[i] {
				depth[s] = d
			} else {
				rest = append(rest, s)
			}
		}
		if len(rest) == len(cand) {
			break
		}
		for i, s := range cand {
			if found[i] {
				removed[s] = true
			}
		}
		cand = rest
	}
	return depth
}

// SinglyCoupled returns size children of source s (effect indices, in
// increasing order) of which no other source is a parent of two, ignoring
// the sources marked in removed (nil: none), or nil when there is none.
// With size 4 it is a witness that s can be found once the removed sources
// are subtracted off.
func (n *Network) SinglyCoupled(s, size int, removed []bool) []int {
	if s < 0 || s >= len(n.Sources) || size < 1 || len(n.Sources[s].Children) < size {
		return nil
	}
	if removed == nil {
		removed = make([]bool, len(n.Sources))
	}
	c := newCoupler(n)
	return c.find(s, size, removed, c.newScratch())
}

// DepthCount is one row of a depth table: how many sources were found at a
// depth and how many edges they have.
type DepthCount struct {
	// Depth is the round, or −1 for the sources never found.
	Depth int
	// Sources is the number of sources at this depth.
	Sources int
	// Edges is the number of children of those sources.
	Edges int
}

// DepthTable counts the sources of n and their edges by depth (as given by
// QuartetDepths or TripletDepths), in increasing depth with depth −1 last.
// Depths between 0 and the largest one are all listed, even when empty; the
// row of depth −1 is listed only when it is not empty.
func DepthTable(n *Network, depths []int) []DepthCount {
	maxd := -1
	for _, d := range depths {
		maxd = max(maxd, d)
	}
	rows := make([]DepthCount, maxd+2)
	for i := range rows {
		rows[i].Depth = i
	}
	rows[maxd+1].Depth = -1
	for s, d := range depths {
		i := d
		if d < 0 {
			i = maxd + 1
		}
		rows[i].Sources++
		rows[i].Edges += len(n.Sources[s].Children)
	}
	if rows[maxd+1].Sources == 0 {
		rows = rows[:maxd+1]
	}
	return rows
}

// coupler finds singly-coupled sets of children.
type coupler struct {
	net     *Network
	parents [][]int32 // parents of every effect, in increasing order
}

func newCoupler(n *Network) *coupler {
	c := &coupler{net: n, parents: make([][]int32, len(n.Effects))}
	for s, src := range n.Sources {
		for _, ch := range src.Children {
			c.parents[ch.Effect] = append(c.parents[ch.Effect], int32(s))
		}
	}
	return c
}

// coupleScratch is the working memory of one goroutine.
type coupleScratch struct {
	slot    []int32  // per source: its row in masks, or −1
	masks   []uint64 // per touched source: the children of s it is a parent of
	touched []int32  // the sources with a row in masks
	adj     []uint64 // conflict graph, one bit row of w words per child
	levels  []uint64 // candidate sets, one per search level
	cover   []uint64 // the vertices the clique-cover bound has not covered
	clique  []uint64 // the vertices adjacent to every member of its clique
	w       int
}

func (c *coupler) newScratch() *coupleScratch {
	sc := &coupleScratch{slot: make([]int32, len(c.net.Sources))}
	for i := range sc.slot {
		sc.slot[i] = -1
	}
	return sc
}

// find returns size children of source s, in increasing effect order, no
// two of which share a parent other than s outside removed; nil if none.
func (c *coupler) find(s, size int, removed []bool, sc *coupleScratch) []int {
	kids := c.net.Sources[s].Children
	k := len(kids)
	if k < size {
		return nil
	}
	w := (k + 63) / 64
	sc.w = w
	sc.adj = wordsOf(sc.adj, k*w)
	clear(sc.adj)
	// masks[slot[y]] is the set of the children that another remaining
	// parent y shares with s; a child's row is the union of the masks of
	// its other parents, less itself.
	sc.touched = sc.touched[:0]
	sc.masks = sc.masks[:0]
	for i, ch := range kids {
		for _, y := range c.parents[ch.Effect] {
			if int(y) == s || removed[y] {
				continue
			}
			sl := sc.slot[y]
			if sl < 0 {
				sl = int32(len(sc.touched))
				sc.slot[y] = sl
				sc.touched = append(sc.touched, y)
				l := len(sc.masks)
				sc.masks = slices.Grow(sc.masks, w)[:l+w]
				clear(sc.masks[l:])
			}
			sc.masks[int(sl)*w+i>>6] |= 1 << (i & 63)
		}
	}
	for i, ch := range kids {
		row := sc.adj[i*w : i*w+w]
		for _, y := range c.parents[ch.Effect] {
			if int(y) == s || removed[y] {
				continue
			}
			m := sc.masks[int(sc.slot[y])*w:]
			for j := range row {
				row[j] |= m[j]
			}
		}
		row[i>>6] &^= 1 << (i & 63)
	}
	for _, y := range sc.touched {
		sc.slot[y] = -1
	}
	sc.levels = wordsOf(sc.levels, (size+1)*w)
	sc.cover = wordsOf(sc.cover, w)
	sc.clique = wordsOf(sc.clique, w)
	all := sc.levels[size*w : size*w+w]
	clear(all)
	for i := range k {
		all[i>>6] |= 1 << (i & 63)
	}
	pick := make([]int, 0, size)
	pick, ok := sc.independent(all, size, pick)
	if !ok {
		return nil
	}
	out := make([]int, size)
	for i, v := range pick {
		out[i] = kids[v].Effect
	}
	slices.Sort(out)
	return out
}

func wordsOf(b []uint64, n int) []uint64 {
	if cap(b) < n {
		return make([]uint64, n)
	}
	return b[:n]
}

func setCount(b []uint64) int {
	n := 0
	for _, x := range b {
		n += bits.OnesCount64(x)
	}
	return n
}

// independent looks for need pairwise non-adjacent vertices in cands (a
// bit set of w words; it is consumed) and appends them to pick.
func (sc *coupleScratch) independent(cands []uint64, need int, pick []int) ([]int, bool) {
	w := sc.w
	if need == 0 {
		return pick, true
	}
	if setCount(cands) < need {
		return pick, false
	}
	if need >= 2 && sc.coveredBy(cands, need-1) {
		return pick, false
	}
	next := sc.levels[(need-1)*w : need*w]
	for wi := range w {
		for cands[wi] != 0 {
			b := bits.TrailingZeros64(cands[wi])
			cands[wi] &^= 1 << b
			v := wi*64 + b
			if need == 1 {
				return append(pick, v), true
			}
			row := sc.adj[v*w : v*w+w]
			cnt := 0
			for i := range w {
				next[i] = cands[i] &^ row[i]
				cnt += bits.OnesCount64(next[i])
			}
			if cnt < need-1 {
				continue
			}
			if p, ok := sc.independent(next, need-1, append(pick, v)); ok {
				return p, true
			}
			if setCount(cands[wi:]) < need {
				return pick, false
			}
		}
	}
	return pick, false
}

// coveredBy reports whether a greedy partition of cands into cliques of
// the conflict graph uses at most m cliques; then cands has no independent
// set of more than m vertices.
func (sc *coupleScratch) coveredBy(cands []uint64, m int) bool {
	w := sc.w
	rem := sc.cover
	copy(rem, cands)
	for range m {
		// Grow a clique from the first remaining vertex: qs holds the
		// remaining vertices adjacent to every member so far.
		v := setFirst(rem)
		if v < 0 {
			return true
		}
		rem[v>>6] &^= 1 << (v & 63)
		row := sc.adj[v*w : v*w+w]
		qs := sc.clique
		for i := range w {
			qs[i] = rem[i] & row[i]
		}
		for {
			u := setFirst(qs)
			if u < 0 {
				break
			}
			rem[u>>6] &^= 1 << (u & 63)
			ru := sc.adj[u*w : u*w+w]
			for i := range w {
				qs[i] &= ru[i]
			}
		}
	}
	return setFirst(rem) < 0
}

func setFirst(b []uint64) int {
	for i, x := range b {
		if x != 0 {
			return i*64 + bits.TrailingZeros64(x)
		}
	}
	return -1
}
