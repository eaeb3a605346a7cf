package tree

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Bitset is a set of small non-negative integers, one bit per element, in
// 64-bit words. In this package its elements are positions in the sorted
// list of observed names of a tree (Tree.ObservedNames).
type Bitset []uint64

// NewBitset returns an empty set that can hold the elements 0..n-1.
func NewBitset(n int) Bitset {
	if n < 0 {
		panic("tree: NewBitset: negative size")
	}
	return make(Bitset, (n+63)/64)
}

// Has reports whether i is in the set. Elements beyond the capacity of the
// set are never in it.
func (b Bitset) Has(i int) bool {
	if i < 0 || i/64 >= len(b) {
		return false
	}
	return b[i/64]&(1<<(uint(i)%64)) != 0
}

// Set adds i to the set. It panics if i is beyond the set's capacity.
func (b Bitset) Set(i int) { b[i/64] |= 1 << (uint(i) % 64) }

// Clear removes i from the set. It panics if i is beyond the set's capacity.
func (b Bitset) Clear(i int) { b[i/64] &^= 1 << (uint(i) % 64) }

// Count returns the number of elements of the set.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether the set has no element.
func (b Bitset) IsEmpty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// Union adds the elements of c to b. The sets must have the same capacity.
func (b Bitset) Union(c Bitset) {
	if len(b) != len(c) {
		panic("tree: Bitset.Union: sets of different capacity")
	}
	for k, w := range c {
		b[k] |= w
	}
}

// Equal reports whether b and c have the same elements.
func (b Bitset) Equal(c Bitset) bool {
	n := max(len(b), len(c))
	for k := range n {
		if b.word(k) != c.word(k) {
			return false
		}
	}
	return true
}

func (b Bitset) word(k int) uint64 {
	if k < len(b) {
		return b[k]
	}
	return 0
}

// Compare orders sets: it returns 0 if b and c are equal, and otherwise -1
// if the smallest element in exactly one of them is in b, +1 if it is in c.
// This is a total order, used to sort splits deterministically.
func (b Bitset) Compare(c Bitset) int {
	n := max(len(b), len(c))
	for k := range n {
		x, y := b.word(k), c.word(k)
		if d := x ^ y; d != 0 {
			if x&(d&-d) != 0 {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Complement returns the elements of 0..n-1 that are not in b, as a new set
// of capacity n.
func (b Bitset) Complement(n int) Bitset {
	c := NewBitset(n)
	for k := range c {
		c[k] = ^b.word(k)
	}
	if r := n % 64; r != 0 {
		c[len(c)-1] &= 1<<uint(r) - 1
	}
	return c
}

// Indices returns the elements of the set in increasing order.
func (b Bitset) Indices() []int {
	out := make([]int, 0, b.Count())
	for k, w := range b {
		for w != 0 {
			out = append(out, k*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return out
}

// Clone returns a copy of the set.
func (b Bitset) Clone() Bitset { return slices.Clone(b) }

// Split is the bipartition of the observed variables of a tree induced by
// removing one edge. Both sides are non-empty. A split is stored as the side
// that does not contain the first observed name (in sorted order), so two
// splits of trees over the same observed variables are equal exactly when
// they describe the same bipartition.
type Split struct {
	// side holds the positions in names of the side without names[0];
	// when it is nil, that side is order[lo:hi] instead: an order of all
	// the positions, shared by the splits of one tree, in which every
	// split is a run (see clusters).
	side   Bitset
	order  []int32
	lo, hi int32
	names  []string // sorted observed names of the tree; shared, read-only
}

// Side returns the side of the split that does not contain the first
// observed name, as positions in the sorted observed names.
func (s Split) Side() Bitset {
	if s.side != nil {
		return s.side.Clone()
	}
	b := NewBitset(len(s.names))
	for _, p := range s.order[s.lo:s.hi] {
		b.Set(int(p))
	}
	return b
}

// size returns the number of variables on the side without the first
// observed name.
func (s Split) size() int {
	if s.side != nil {
		return s.side.Count()
	}
	return int(s.hi - s.lo)
}

// NumVariables returns the number of observed variables the split divides.
func (s Split) NumVariables() int { return len(s.names) }

// Sides returns the names on each side of the split, each sorted: first the
// side that contains the first observed name (in sorted order), then the
// other side.
func (s Split) Sides() (withFirst, other []string) {
	side := s.side
	if side == nil {
		side = s.Side()
	}
	for i, name := range s.names {
		if side.Has(i) {
			other = append(other, name)
		} else {
			withFirst = append(withFirst, name)
		}
	}
	return withFirst, other
}

// Smaller returns the names on the smaller side of the split (the side
// without the first observed name when both sides have the same size),
// sorted. For a split returned by RobinsonFoulds it takes time in the size
// of that side only (times its logarithm).
func (s Split) Smaller() []string {
	if s.side != nil {
		a, b := s.Sides()
		if len(a) < len(b) {
			return a
		}
		return b
	}
	var pos []int32
	if k := s.size(); 2*k <= len(s.names) {
		pos = slices.Clone(s.order[s.lo:s.hi])
	} else {
		pos = append(slices.Clone(s.order[:s.lo]), s.order[s.hi:]...)
	}
	slices.Sort(pos)
	out := make([]string, len(pos))
	for i, p := range pos {
		out[i] = s.names[p]
	}
	return out
}

// IsSingleton reports whether one side of the split has a single variable,
// as for the edge above a leaf. Such splits are called trivial for trees
// whose observed variables are all leaves.
func (s Split) IsSingleton() bool {
	k := s.size()
	return k == 1 || k == len(s.names)-1
}

// Equal reports whether s and o are the same bipartition. Both must come
// from trees over the same observed variables.
func (s Split) Equal(o Split) bool {
	if s.size() != o.size() {
		return false
	}
	a, b := s.side, o.side
	if a == nil {
		a = s.Side()
	}
	if b == nil {
		b = o.Side()
	}
	return a.Equal(b)
}

// String returns the split as "{a, b} | {c, d}", the side with the first
// observed name first.
func (s Split) String() string {
	a, b := s.Sides()
	return "{" + strings.Join(a, ", ") + "} | {" + strings.Join(b, ", ") + "}"
}

// compareSplits orders splits by the size of their stored side, then by
// Bitset.Compare.
func compareSplits(a, b Split) int {
	if ca, cb := a.side.Count(), b.side.Count(); ca != cb {
		if ca < cb {
			return -1
		}
		return 1
	}
	return a.side.Compare(b.side)
}

// Splits returns the distinct bipartitions of the observed variables
// induced by the edges of t. Observed nodes may be internal; hidden nodes
// belong to no side. Edges with no observed node on one side induce no
// split, and edges inducing the same bipartition (as the two edges at a
// hidden node of degree two) give it once. Singleton splits ({x} | rest) are
// included. The splits are sorted by the size of the side without the first
// observed name, then by Bitset.Compare. A tree without observed nodes has
// no splits. It is an error if t is not a single tree.
//
// The cost is O(edges × observed/64) time and memory.
func Splits(t *Tree) ([]Split, error) {
	if err := t.checkShape(); err != nil {
		return nil, err
	}
	obs := t.Observed()
	m := len(obs)
	if m == 0 {
		return nil, nil
	}
	slices.SortFunc(obs, func(a, b int) int { return strings.Compare(t.nodes[a].Name, t.nodes[b].Name) })
	names := make([]string, m)
	pos := make([]int, t.MaxID())
	for i := range pos {
		pos[i] = -1
	}
	for i, id := range obs {
		names[i] = t.nodes[id].Name
		pos[id] = i
	}
	// Rooting at the first observed node makes every subtree below an edge
	// the side without names[0], that is, already canonical.
	r := t.Root(obs[0])
	words := (m + 63) / 64
	backing := make([]uint64, words*t.MaxID())
	set := func(id int) Bitset { return Bitset(backing[id*words : (id+1)*words : (id+1)*words]) }
	splits := make([]Split, 0, t.NumEdges())
	for k := len(r.Order) - 1; k >= 1; k-- {
		v := r.Order[k]
		b := set(v)
		if pos[v] >= 0 {
			b.Set(pos[v])
		}
		if b.IsEmpty() {
			continue
		}
		splits = append(splits, Split{side: b, names: names})
		set(r.Parent[v]).Union(b)
	}
	slices.SortFunc(splits, compareSplits)
	splits = slices.CompactFunc(splits, func(a, b Split) bool { return a.side.Equal(b.side) })
	return slices.Clip(splits), nil
}

// RFResult is the outcome of comparing two trees with RobinsonFoulds.
type RFResult struct {
	// RF is the Robinson–Foulds distance: the number of splits found in
	// exactly one of the two trees.
	RF int
	// Normalized is RF divided by the number of splits of both trees,
	// leaving out singleton splits that both trees have (so that, for trees
	// whose observed variables are all leaves, it is the usual normalised
	// distance over non-trivial splits). It is 0 when that number is 0.
	Normalized float64
	// OnlyA and OnlyB are the splits found only in the first and only in
	// the second tree, sorted by the size of their smaller side, then by
	// the first name of that side, then by their place in their tree.
	OnlyA, OnlyB []Split
}

// RobinsonFoulds compares the splits (see Splits) of two trees over the
// same observed variables. It is an error if the trees have different
// observed names, or if either is not a single tree.
//
// It takes time and memory linear in the sizes of the trees (after sorting
// the names), by Day's algorithm (1985): both trees are rooted at the first
// observed name, the observed nodes are numbered so that every split of
// the first tree is an interval of numbers, and a split of the second tree
// is common to both when its numbers form one of those intervals. The
// splits of OnlyA and OnlyB hold no copy of their sides.
func RobinsonFoulds(a, b *Tree) (RFResult, error) {
	na, nb := a.ObservedNames(), b.ObservedNames()
	if !slices.Equal(na, nb) {
		return RFResult{}, namesDiffer(na, nb)
	}
	if err := a.checkShape(); err != nil {
		return RFResult{}, fmt.Errorf("first tree: %w", err)
	}
	if err := b.checkShape(); err != nil {
		return RFResult{}, fmt.Errorf("second tree: %w", err)
	}
	m := len(na)
	if m == 0 {
		return RFResult{}, nil
	}
	ca, cb := clustersOf(a, na), clustersOf(b, na)
	// The splits of a by (first number, size) in a's numbering.
	key := func(lo, size int32) int64 { return int64(lo)*int64(m+1) + int64(size) }
	index := make(map[int64]int32, len(ca.lo))
	for i := range ca.lo {
		index[key(ca.lo[i], ca.hi[i]-ca.lo[i])] = int32(i)
	}
	// Every node of b: the least and greatest of a's numbers of the
	// observed nodes below it.
	label := make([]int32, m) // a's number of each position
	for k, p := range ca.order {
		label[p] = int32(k)
	}
	lowest, highest := make([]int32, b.MaxID()), make([]int32, b.MaxID())
	r := cb.rooted
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		lowest[v], highest[v] = int32(m), -1
		if p := cb.pos[v]; p >= 0 {
			lowest[v], highest[v] = label[p], label[p]
		}
		for _, c := range r.Children[v] {
			lowest[v], highest[v] = min(lowest[v], lowest[c]), max(highest[v], highest[c])
		}
	}
	inA := make([]bool, len(ca.lo))
	inB := make([]bool, len(cb.lo))
	commonSingletons := 0
	for j, v := range cb.node {
		size := cb.hi[j] - cb.lo[j]
		if highest[v]-lowest[v]+1 != size {
			continue
		}
		if i, ok := index[key(lowest[v], size)]; ok {
			inA[i], inB[j] = true, true
			if size == 1 || int(size) == m-1 {
				commonSingletons++
			}
		}
	}
	res := RFResult{OnlyA: ca.splits(inA), OnlyB: cb.splits(inB)}
	res.RF = len(res.OnlyA) + len(res.OnlyB)
	if den := len(ca.lo) + len(cb.lo) - 2*commonSingletons; den > 0 {
		res.Normalized = float64(res.RF) / float64(den)
	}
	return res, nil
}

// clusters are the distinct splits of a tree rooted at its first observed
// name, each the observed nodes below one node: numbering the observed
// nodes in a depth-first order makes each an interval, order[lo[i]:hi[i]]
// (order lists the positions of the names in that numbering).
type clusters struct {
	rooted *Rooted
	names  []string
	pos    []int32 // position of each node's name, or −1
	order  []int32
	// lo, hi and node give each split's interval and its lowest node
	// (the one whose subtree it is); first is the least position in it.
	lo, hi, first []int32
	node          []int
}

// clustersOf returns the clusters of t, whose observed names, sorted, are
// names (at least one).
func clustersOf(t *Tree, names []string) *clusters {
	c := &clusters{names: names, pos: make([]int32, t.MaxID())}
	for i := range c.pos {
		c.pos[i] = -1
	}
	for i, name := range names {
		id, _ := t.Lookup(name)
		c.pos[id] = int32(i)
	}
	root, _ := t.Lookup(names[0])
	r := t.Root(root)
	c.rooted = r
	n := t.MaxID()
	count, start, first := make([]int32, n), make([]int32, n), make([]int32, n)
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		count[v], first[v] = 0, int32(len(names))
		if p := c.pos[v]; p >= 0 {
			count[v], first[v] = 1, p
		}
		for _, ch := range r.Children[v] {
			count[v] += count[ch]
			first[v] = min(first[v], first[ch])
		}
	}
	// Depth-first numbers: a node's own number (if observed) comes first,
	// then its children's subtrees in turn.
	c.order = make([]int32, len(names))
	for _, v := range r.Order {
		next := start[v]
		if p := c.pos[v]; p >= 0 {
			c.order[next] = p
			next++
		}
		for _, ch := range r.Children[v] {
			start[ch] = next
			next += count[ch]
		}
	}
	for _, v := range r.Order[1:] {
		if count[v] == 0 {
			continue
		}
		if c.pos[v] < 0 {
			// A hidden node with observed nodes below one child only has
			// that child's split.
			withObserved := 0
			for _, ch := range r.Children[v] {
				if count[ch] > 0 {
					withObserved++
				}
			}
			if withObserved == 1 {
				continue
			}
		}
		c.lo = append(c.lo, start[v])
		c.hi = append(c.hi, start[v]+count[v])
		c.first = append(c.first, first[v])
		c.node = append(c.node, v)
	}
	return c
}

// splits returns the splits not marked in common, sorted by the size of
// their smaller side, then by the least position in it (0, the first name,
// when it is the side with the first name), then by their place in the
// numbering.
func (c *clusters) splits(common []bool) []Split {
	m := int32(len(c.names))
	type keyed struct {
		small, first int32
		i            int
	}
	var ks []keyed
	for i, in := range common {
		if in {
			continue
		}
		k := keyed{small: c.hi[i] - c.lo[i], first: c.first[i], i: i}
		if 2*k.small > m {
			k.small, k.first = m-k.small, 0
		}
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.small != b.small {
			return cmp.Compare(a.small, b.small)
		}
		if a.first != b.first {
			return cmp.Compare(a.first, b.first)
		}
		return cmp.Compare(c.lo[a.i], c.lo[b.i])
	})
	if len(ks) == 0 {
		return nil
	}
	out := make([]Split, len(ks))
	for j, k := range ks {
		out[j] = Split{order: c.order, lo: c.lo[k.i], hi: c.hi[k.i], names: c.names}
	}
	return out
}

// SameTopology reports whether two trees over the same observed variables
// induce the same splits (Robinson–Foulds distance 0).
func SameTopology(a, b *Tree) (bool, error) {
	r, err := RobinsonFoulds(a, b)
	if err != nil {
		return false, err
	}
	return r.RF == 0, nil
}

// namesDiffer describes how two sorted name lists differ.
func namesDiffer(a, b []string) error {
	var onlyA, onlyB []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	var parts []string
	if len(onlyA) > 0 {
		parts = append(parts, "only in the first tree: "+listNames(onlyA))
	}
	if len(onlyB) > 0 {
		parts = append(parts, "only in the second tree: "+listNames(onlyB))
	}
	return errors.New("tree: the trees have different observed variables (" + strings.Join(parts, "; ") + ")")
}

// listNames quotes up to ten names for an error message.
func listNames(names []string) string {
	const limit = 10
	var sb strings.Builder
	for k, n := range names {
		if k == limit {
			fmt.Fprintf(&sb, " and %d more", len(names)-limit)
			break
		}
		if k > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%q", n)
	}
	return sb.String()
}
