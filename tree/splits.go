package tree

import (
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
	side  Bitset   // positions in names of the side without names[0]
	names []string // sorted observed names of the tree; shared, read-only
}

// Side returns the side of the split that does not contain the first
// observed name, as positions in the sorted observed names.
func (s Split) Side() Bitset { return s.side.Clone() }

// NumVariables returns the number of observed variables the split divides.
func (s Split) NumVariables() int { return len(s.names) }

// Sides returns the names on each side of the split, each sorted: first the
// side that contains the first observed name (in sorted order), then the
// other side.
func (s Split) Sides() (withFirst, other []string) {
	for i, name := range s.names {
		if s.side.Has(i) {
			other = append(other, name)
		} else {
			withFirst = append(withFirst, name)
		}
	}
	return withFirst, other
}

// Smaller returns the names on the smaller side of the split (the side
// without the first observed name when both sides have the same size).
func (s Split) Smaller() []string {
	a, b := s.Sides()
	if len(a) < len(b) {
		return a
	}
	return b
}

// IsSingleton reports whether one side of the split has a single variable,
// as for the edge above a leaf. Such splits are called trivial for trees
// whose observed variables are all leaves.
func (s Split) IsSingleton() bool {
	k := s.side.Count()
	return k == 1 || k == len(s.names)-1
}

// Equal reports whether s and o are the same bipartition. Both must come
// from trees over the same observed variables.
func (s Split) Equal(o Split) bool { return s.side.Equal(o.side) }

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
	// the second tree, sorted as by Splits.
	OnlyA, OnlyB []Split
}

// RobinsonFoulds compares the splits (see Splits) of two trees over the
// same observed variables. It is an error if the trees have different
// observed names, or if either is not a single tree.
func RobinsonFoulds(a, b *Tree) (RFResult, error) {
	na, nb := a.ObservedNames(), b.ObservedNames()
	if !slices.Equal(na, nb) {
		return RFResult{}, namesDiffer(na, nb)
	}
	sa, err := Splits(a)
	if err != nil {
		return RFResult{}, fmt.Errorf("first tree: %w", err)
	}
	sb, err := Splits(b)
	if err != nil {
		return RFResult{}, fmt.Errorf("second tree: %w", err)
	}
	var res RFResult
	common, commonSingletons := 0, 0
	i, j := 0, 0
	for i < len(sa) || j < len(sb) {
		var c int
		switch {
		case i == len(sa):
			c = 1
		case j == len(sb):
			c = -1
		default:
			c = compareSplits(sa[i], sb[j])
		}
		switch {
		case c < 0:
			res.OnlyA = append(res.OnlyA, sa[i])
			i++
		case c > 0:
			res.OnlyB = append(res.OnlyB, sb[j])
			j++
		default:
			common++
			if sa[i].IsSingleton() {
				commonSingletons++
			}
			i++
			j++
		}
	}
	res.RF = len(res.OnlyA) + len(res.OnlyB)
	if den := len(sa) + len(sb) - 2*commonSingletons; den > 0 {
		res.Normalized = float64(res.RF) / float64(den)
	}
	return res, nil
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
