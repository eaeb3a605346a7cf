// Package unionfind is a union–find (disjoint-set) forest over the
// integers 0..n−1, for the packages that group items by connectivity: the
// noisy-or likelihoods and EM (sources coupled by shared positive effects)
// and the tree reader (cycle detection).
package unionfind

// Forest is a union–find forest: f[x] is x's parent, x itself at a root.
// Union links the larger root under the smaller, so every root is the
// smallest member of its set. A caller may keep its own marks in entries
// it has not linked (noisyor uses −1 for "not in the forest yet") as long
// as it sets f[x] = x before x takes part in Find or Union.
type Forest[T ~int | ~int32] []T

// New returns a forest of n singletons.
func New[T ~int | ~int32](n int) Forest[T] {
	f := make(Forest[T], n)
	for i := range f {
		f[i] = T(i)
	}
	return f
}

// Find returns the root of x's set, halving the path on the way.
func (f Forest[T]) Find(x T) T {
	for f[x] != x {
		f[x] = f[f[x]]
		x = f[x]
	}
	return x
}

// Union merges the sets of x and y under the smaller root and reports
// whether they were apart.
func (f Forest[T]) Union(x, y T) bool {
	x, y = f.Find(x), f.Find(y)
	if x == y {
		return false
	}
	f[max(x, y)] = min(x, y)
	return true
}
