package quartetlearn

import (
	"math"
	"math/bits"
	"slices"

	"github.com/latentree/latentree/noisyor"
)

// maxPruneChildren bounds the children over which pruneLocal tabulates a
// source's marginal likelihood (2^k cells); beyond it the source's first
// maxPruneChildren children are used, which still measures whether the
// source explains their dependence.
const maxPruneChildren = 16

// maxPrunePrior bounds the priors pruneLocal accepts: MIXTURE's root is at most 1/2 (the method assumes priors ≤ 1/2)
// and reaches it only when the quartet's equation has no real root, that
// is when the quartet is no single source's.
const maxPrunePrior = 0.5

// pruneLocal removes, latest found first, each learned source that does not pay for itself in BIC on the data of its own children: the
// exact marginal log-likelihood of those columns (eq. 1 and
// inclusion–exclusion over the children) with the source, against the
// network without it whose leaks on those children are refitted to the
// data (refitLeaks), so that only the dependence the source explains is
// judged. A source costs 1 + children parameters, ln(rows)/2 each.
//
// On finite data a quartet can pass the tests by chance, most often after
// subtracting off estimated sources (depth ≥ 1) but also at depth 0 (tiny
// or near-1/2 priors, a few children); this check removes such sources.
// It needs rows only over the children, so it costs little whatever the
// data's size. The network is modified in place; the dropped sources are
// returned in the order found.
func pruneLocal(n *noisyor.Network, b *noisyor.Binary) []noisyor.Source {
	var dropped []noisyor.Source
	logN := math.Log(float64(max(1, b.Rows)))
	for s := len(n.Sources) - 1; s >= 0; s-- {
		src := n.Sources[s]
		if src.Learned == nil || len(src.Children) == 0 {
			continue
		}
		set := make([]int, 0, min(len(src.Children), maxPruneChildren))
		for _, c := range src.Children[:min(len(src.Children), maxPruneChildren)] {
			set = append(set, c.Effect)
		}
		counts, rows := patternCounts(b, set)
		if rows == 0 {
			continue
		}
		// A prior at maxPrunePrior or above breaks the method's
		// assumption, and a source expected on in fewer rows than it has
		// parameters cannot be estimated.
		if src.Prior >= maxPrunePrior || src.Prior*float64(rows) < float64(1+len(src.Children)) {
			n.Sources = slices.Delete(n.Sources, s, s+1)
			dropped = append(dropped, src)
			continue
		}
		with, ok1 := marginalLogLik(n, set, counts)
		without := n.Clone()
		without.Sources = slices.Delete(without.Sources, s, s+1)
		refitLeaks(without, src, b)
		wo, ok2 := marginalLogLik(without, set, counts)
		if !ok1 || !ok2 {
			continue
		}
		penalty := float64(1+len(src.Children)) * logN / 2
		if with-wo < penalty {
			*n = *without
			dropped = append(dropped, src)
		}
	}
	slices.Reverse(dropped)
	if len(dropped) > 0 {
		// The leaks of the learner's own formula for what is left.
		learned := newLearnedIndex(len(n.Effects))
		for i := range n.Sources {
			learned.add(&n.Sources[i])
		}
		n.Leak = leaks(newDataMoments(b), learned)
	}
	return dropped
}

// refitLeaks gives each child a of src, in n (which no longer has src),
// the leak that matches the data's rate of a = 0 given n's other sources:
// ν = 1 − P̂(a = 0)/∏_X(1 − p_X + p_X f_{X,a}), clamped to [0, 1). The
// network without src then keeps each child's observed marginal and loses
// only the dependence src explained.
func refitLeaks(n *noisyor.Network, src noisyor.Source, b *noisyor.Binary) {
	if n.Leak == nil {
		n.Leak = make([]float64, len(n.Effects))
	} else {
		n.Leak = slices.Clone(n.Leak)
	}
	for _, c := range src.Children {
		a := c.Effect
		zeros, ones := b.CountZeros(a), b.CountOnes(a)
		if zeros+ones == 0 {
			continue
		}
		q := float64(zeros) / float64(zeros+ones)
		for x := range n.Sources {
			q /= 1 - n.Sources[x].Prior + n.Sources[x].Prior*n.Failure(x, a)
		}
		n.Leak[a] = min(max(1-q, 0), 1-1e-12)
	}
}

// patternCounts counts the rows of b by their values on set (index bit
// len(set)−1−k is set[k], as in noisyor.Network.Joint), over the rows
// that observe every effect of set, and returns the counts and that
// number of rows.
func patternCounts(b *noisyor.Binary, set []int) ([]float64, int) {
	k := len(set)
	counts := make([]float64, 1<<k)
	idx := make([]int, 64)
	obs := make([]uint64, 1)
	rows := 0
	words := (b.Rows + 63) / 64
	for w := range words {
		valid := ^uint64(0)
		if w == words-1 && b.Rows%64 != 0 {
			valid = 1<<(b.Rows%64) - 1
		}
		obs[0] = valid
		for _, a := range set {
			obs[0] &= b.Ones[a][w] | b.Zeros[a][w]
		}
		clear(idx)
		for i, a := range set {
			ones := b.Ones[a][w] & obs[0]
			for ones != 0 {
				r := bits.TrailingZeros64(ones)
				idx[r] |= 1 << (k - 1 - i)
				ones &= ones - 1
			}
		}
		for m := obs[0]; m != 0; m &= m - 1 {
			counts[idx[bits.TrailingZeros64(m)]]++
			rows++
		}
	}
	return counts, rows
}

// marginalLogLik is Σ counts·log P(pattern) under n's exact joint of set
// (eq. 1 over every subset, then inclusion–exclusion; only the sources
// with children in set take part); false when a pattern with counts has
// probability ≤ 0.
func marginalLogLik(n *noisyor.Network, set []int, counts []float64) (float64, bool) {
	k := len(set)
	pos := make(map[int]int, k)
	for i, a := range set {
		pos[a] = i
	}
	// neg[mask]: P(every effect whose index bit is 0 is 0), as
	// noisyor.Network.Joint's table before noisyor.NegToJoint;
	// full&^mask is the set of positions with bit 0.
	full := 1<<k - 1
	neg := make([]float64, 1<<k)
	leak := make([]float64, 1<<k) // ∏ (1 − ν) over the zero set
	leak[0] = 1
	for z := 1; z <= full; z++ {
		i := bits.TrailingZeros(uint(z))
		leak[z] = leak[z&(z-1)] * (1 - n.LeakOf(set[k-1-i]))
	}
	for mask := range neg {
		neg[mask] = leak[full&^mask]
	}
	prod := make([]float64, 1<<k)
	f := make([]float64, k)
	for _, src := range n.Sources {
		touches := false
		for i := range f {
			f[i] = 1
		}
		for _, c := range src.Children {
			if i, ok := pos[c.Effect]; ok {
				f[k-1-i] = c.Failure // f indexed by bit
				touches = true
			}
		}
		if !touches {
			continue
		}
		prod[0] = 1
		for z := 1; z <= full; z++ {
			prod[z] = prod[z&(z-1)] * f[bits.TrailingZeros(uint(z))]
		}
		for mask := range neg {
			neg[mask] *= 1 - src.Prior + src.Prior*prod[full&^mask]
		}
	}
	noisyor.NegToJoint(neg, k)
	ll := 0.0
	for m, c := range counts {
		if c == 0 {
			continue
		}
		if !(neg[m] > 0) {
			return 0, false
		}
		ll += c * math.Log(neg[m])
	}
	return ll, true
}
