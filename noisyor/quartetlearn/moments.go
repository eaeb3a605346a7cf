package quartetlearn

import (
	"math/bits"

	"github.com/latentree/latentree/noisyor"
)

// moments gives the negative moments of small sets of effects: the data's
// empirical ones or a network's exact ones.
type moments interface {
	numEffects() int
	// neg writes into t (len 1<<len(set), len(set) ≤ 4) the negative-moment
	// tensor of set: t[mask] is the probability that every member whose
	// index bit is 0 is 0 (set[i] has bit 1<<(len(set)−1−i); bit 1 means
	// "summed out"). It returns the number of rows the estimate rests on
	// (math.MaxInt64 for exact moments) and 0 when no row observes the
	// whole set.
	neg(set []int, t []float64) int64
}

// exactMoments are a network's exact negative moments (eq. 1).
type exactMoments struct {
	net     *noisyor.Network
	parents [][]noisyor.Parent
}

func newExactMoments(n *noisyor.Network) *exactMoments {
	return &exactMoments{net: n, parents: n.Parents()}
}

func (e *exactMoments) numEffects() int { return len(e.net.Effects) }

func (e *exactMoments) neg(set []int, t []float64) int64 {
	k := len(set)
	for mask := range t {
		p := 1.0
		for i, a := range set {
			if mask&(1<<(k-1-i)) == 0 {
				p *= 1 - e.net.LeakOf(a)
			}
		}
		t[mask] = p
	}
	// Each source that is a parent of a member multiplies every entry by
	// 1 − p + p·∏ f over the entry's zero members; the others give 1.
	var lists [4][]noisyor.Parent
	for i, a := range set {
		lists[i] = e.parents[a]
	}
	mergeParents(lists[:k], -1, -1, func(s int, f *[4]float64) {
		applyFactor(t, k, e.net.Sources[s].Prior, f, false)
	})
	return 1<<63 - 1
}

// dataMoments are empirical negative moments counted from bit-packed data
// by popcounts, over the rows that observe every member of the set.
type dataMoments struct {
	b        *noisyor.Binary
	complete bool
	words    int
	lastMask uint64 // valid bits of the last word
}

func newDataMoments(b *noisyor.Binary) *dataMoments {
	d := &dataMoments{b: b, complete: !b.HasMissing(), words: (b.Rows + 63) / 64}
	d.lastMask = ^uint64(0)
	if r := b.Rows % 64; r != 0 {
		d.lastMask = 1<<r - 1
	}
	return d
}

func (d *dataMoments) numEffects() int { return len(d.b.Names) }

func (d *dataMoments) neg(set []int, t []float64) int64 {
	k := len(set)
	full := 1<<k - 1
	var counts [16]int64
	var z [4][]uint64
	var o [4][]uint64
	for i, a := range set {
		z[i] = d.b.Zeros[a][:d.words]
		o[i] = d.b.Ones[a][:d.words]
	}
	var v [16]uint64
	for w := range d.words {
		obs := ^uint64(0)
		if w == d.words-1 {
			obs = d.lastMask
		}
		if !d.complete {
			for i := range k {
				obs &= z[i][w] | o[i][w]
			}
		}
		// v[mask] = obs ∧ (zero bits of the members whose mask bit is 0),
		// built from the mask with one more bit set.
		v[full] = obs
		for mask := full - 1; mask >= 0; mask-- {
			// lowest clear bit of mask
			i := bits.TrailingZeros(uint(^mask))
			v[mask] = v[mask|1<<i] & z[k-1-i][w]
		}
		for mask := 0; mask <= full; mask++ {
			counts[mask] += int64(bits.OnesCount64(v[mask]))
		}
	}
	n := counts[full]
	if n == 0 {
		return 0
	}
	for mask := 0; mask <= full; mask++ {
		t[mask] = float64(counts[mask]) / float64(n)
	}
	return n
}

// learnedIndex maps each effect to the learned sources that are its
// parents, for subtracting them off.
type learnedIndex struct {
	sources []*noisyor.Source
	parents [][]noisyor.Parent // per effect: index into sources, failure
}

func newLearnedIndex(m int) *learnedIndex {
	return &learnedIndex{parents: make([][]noisyor.Parent, m)}
}

func (l *learnedIndex) add(s *noisyor.Source) {
	id := len(l.sources)
	l.sources = append(l.sources, s)
	for _, c := range s.Children {
		l.parents[c.Effect] = append(l.parents[c.Effect], noisyor.Parent{Source: id, Failure: c.Failure})
	}
}

// adjust divides the negative-moment tensor t of set by the factors of the
// first upto learned sources (eq. 3, "subtracting off"): afterwards t holds
// the moments of the network without them.
func (l *learnedIndex) adjust(set []int, t []float64, upto int) {
	l.adjustSkip(set, t, upto, -1)
}

// adjustSkip is adjust that leaves learned source skip in.
func (l *learnedIndex) adjustSkip(set []int, t []float64, upto, skip int) {
	k := len(set)
	var lists [4][]noisyor.Parent
	for i, a := range set {
		lists[i] = l.parents[a]
	}
	mergeParents(lists[:k], upto, skip, func(s int, f *[4]float64) {
		applyFactor(t, k, l.sources[s].Prior, f, true)
	})
}

// mergeParents calls fn once for every source in the union of the parent
// lists (each sorted by source), with f[i] the source's failure on member
// i (1 when it is not a parent of it). Sources ≥ upto (when upto ≥ 0) and
// skip are left out.
func mergeParents(lists [][]noisyor.Parent, upto, skip int, fn func(s int, f *[4]float64)) {
	k := len(lists)
	var idx [4]int
	var f [4]float64
	for {
		s := -1
		for i := range k {
			if idx[i] < len(lists[i]) {
				if x := lists[i][idx[i]].Source; s < 0 || x < s {
					s = x
				}
			}
		}
		if s < 0 || (upto >= 0 && s >= upto) {
			return
		}
		for i := range k {
			f[i] = 1
			if idx[i] < len(lists[i]) && lists[i][idx[i]].Source == s {
				f[i] = lists[i][idx[i]].Failure
				idx[i]++
			}
		}
		if s != skip {
			fn(s, &f)
		}
	}
}

// applyFactor multiplies (or, with divide, divides) every entry of the
// negative-moment tensor t of k effects by the source factor
// 1 − p + p·∏_{members at 0} f_i.
func applyFactor(t []float64, k int, p float64, f *[4]float64, divide bool) {
	full := 1<<k - 1
	var prod [16]float64
	prod[full] = 1
	for mask := full - 1; mask >= 0; mask-- {
		i := bits.TrailingZeros(uint(^mask))
		prod[mask] = prod[mask|1<<i] * f[k-1-i]
	}
	for mask := 0; mask <= full; mask++ {
		v := 1 - p + p*prod[mask]
		if divide {
			t[mask] /= v
		} else {
			t[mask] *= v
		}
	}
}
