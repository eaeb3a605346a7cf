package quartet

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latentree/latentree/tree"
)

// Oracle resolves quartets of variables given by their indices.
type Oracle interface {
	Resolve(q [4]int) (Result, error)
}

// Closer is implemented by oracles that can also say how strongly two
// variables depend on each other (larger is closer, e.g. mutual
// information). Build uses it to choose representative leaves.
type Closer interface {
	Closeness(i, j int) (float64, error)
}

// BuildOptions configures Build.
type BuildOptions struct {
	// Reps is the number of representative leaves tried per branch; with
	// more than one, a quartet is decided by majority over all Reps³
	// combinations (default 1).
	Reps int
	// Order selects the insertion order (default OrderClosest).
	Order Order
	// Src shuffles the insertion order for OrderRandom (required then).
	Src rand.Source
	// Candidates is the number of leaves of each branch, nearest to the
	// centroid by hops, among which the representatives are chosen as
	// those closest to the inserted variable when the oracle is a Closer
	// (default 8). Quartets of strongly dependent leaves are the ones the
	// tests resolve reliably: the inserted variable's own branch then
	// offers a leaf near it, the other branches leaves near the centroid.
	// A negative value takes the nearest leaves by hops, as in the paper.
	Candidates int
}

// Order is an insertion order of the variables.
type Order int

const (
	// OrderClosest starts from the four most dependent variables and
	// inserts next the variable most dependent on one already in the tree
	// (Prim's order on the oracle's Closeness), so that the quartets tested
	// are made of near leaves, the ones the tests resolve reliably. It
	// needs all pairwise closenesses; without a Closer it is OrderGiven.
	OrderClosest Order = iota
	// OrderGiven inserts the variables in the order given.
	OrderGiven
	// OrderRandom shuffles them with BuildOptions.Src (as the paper).
	OrderRandom
)

// ParseOrder returns the insertion order with the given name: closest,
// given or random.
func ParseOrder(s string) (Order, error) {
	switch s {
	case "closest":
		return OrderClosest, nil
	case "given":
		return OrderGiven, nil
	case "random":
		return OrderRandom, nil
	}
	return 0, fmt.Errorf("quartet: unknown order %q (want closest, random or given)", s)
}

// ClosenessMatrix is implemented by closers that compute all pairwise
// closenesses at once (d×d row-major) faster than pair by pair.
type ClosenessMatrix interface {
	ClosenessMatrix() ([]float64, error)
}

// BuildResult is a built tree with the number of tests it took.
type BuildResult struct {
	Tree *tree.Tree
	// Tests counts the quartet tests run; Unresolved those whose margin
	// was below the oracle's threshold (decided by their best score).
	Tests, Unresolved int
}

// Build builds a binary latent tree over the named variables from quartet
// tests (Ishteva et al. 2013, Algorithm 2): it resolves a first quartet,
// then inserts each further variable by descending through the current
// tree, at each step testing it against representatives of the three
// branches of a centroid of the remaining region, so that an insertion
// costs O(log i) tests and the tree O(d log d). A test that fails (an
// oracle error, a numerical failure wrapping ErrNumerical, or a Result
// without a best pairing) stops Build with an error naming its variables.
func Build(names []string, o Oracle, opt BuildOptions) (*BuildResult, error) {
	d := len(names)
	if d < 4 {
		return nil, fmt.Errorf("quartet: need at least 4 variables, got %d", d)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("quartet: variable %q given twice", n)
		}
		seen[n] = true
	}
	reps := opt.Reps
	if reps <= 0 {
		reps = 1
	}
	cands := opt.Candidates
	if cands == 0 {
		cands = 8
	}
	closer, _ := o.(Closer)
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	switch {
	case opt.Order == OrderRandom:
		if opt.Src == nil {
			return nil, errors.New("quartet: OrderRandom needs a source of randomness (BuildOptions.Src)")
		}
		rand.New(opt.Src).Shuffle(d, func(i, j int) { order[i], order[j] = order[j], order[i] })
	case opt.Order == OrderClosest && closer != nil:
		var err error
		if order, err = closestOrder(d, closer); err != nil {
			return nil, err
		}
	}
	t := tree.New()
	node := make([]int, d) // variable → tree node
	varOf := map[int]int{} // tree node → variable
	for i, n := range names {
		id, err := t.AddObserved(n)
		if err != nil {
			return nil, err
		}
		node[i] = id
		varOf[id] = i
	}
	res := &BuildResult{Tree: t}
	if cands < 0 || closer == nil {
		cands = reps
		closer = nil
	}
	cands = max(cands, reps)
	pick := func(x int, leaves []int) ([]int, error) {
		if closer == nil || len(leaves) <= reps {
			return leaves, nil
		}
		type cand struct {
			v int
			c float64
		}
		cs := make([]cand, len(leaves))
		for i, v := range leaves {
			c, err := closer.Closeness(x, varOf[v])
			if err != nil {
				return nil, err
			}
			if math.IsNaN(c) {
				c = math.Inf(-1)
			}
			cs[i] = cand{v, c}
		}
		// Stable: ties keep the nearer-by-hops leaf.
		slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(b.c, a.c) })
		out := make([]int, reps)
		for i := range out {
			out[i] = cs[i].v
		}
		return out, nil
	}
	resolve := func(q [4]int) (Result, error) {
		r, err := o.Resolve(q)
		if err != nil {
			return r, err
		}
		if r.Err != nil {
			return r, fmt.Errorf("quartet test of %q, %q, %q, %q: %w", names[q[0]], names[q[1]], names[q[2]], names[q[3]], r.Err)
		}
		if r.Best < P01 || r.Best > P03 {
			return r, fmt.Errorf("quartet: the oracle gave no best pairing for %q, %q, %q, %q", names[q[0]], names[q[1]], names[q[2]], names[q[3]])
		}
		res.Tests++
		if r.Pairing == Unresolved {
			res.Unresolved++
		}
		return r, nil
	}
	// First quartet.
	q := [4]int{order[0], order[1], order[2], order[3]}
	r, err := resolve(q)
	if err != nil {
		return nil, err
	}
	a, b := r.Best.Pairs()
	h1, h2 := t.AddHidden(), t.AddHidden()
	for _, e := range [][2]int{{h1, h2}, {h1, node[q[a[0]]]}, {h1, node[q[a[1]]]}, {h2, node[q[b[0]]]}, {h2, node[q[b[1]]]}} {
		if err := t.AddEdge(e[0], e[1], math.NaN()); err != nil {
			return nil, internalError(err) // new, distinct nodes
		}
	}
	for _, x := range order[4:] {
		if err := insert(t, node[x], x, varOf, cands, pick, resolve); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// closestOrder returns Prim's order on the closeness: the most dependent
// pair first, then repeatedly the variable closest to one already taken.
func closestOrder(d int, c Closer) ([]int, error) {
	var cm []float64
	if all, ok := c.(ClosenessMatrix); ok {
		var err error
		if cm, err = all.ClosenessMatrix(); err != nil {
			return nil, err
		}
		if len(cm) != d*d {
			return nil, fmt.Errorf("quartet: closeness matrix of %d entries for %d variables", len(cm), d)
		}
	} else {
		cm = make([]float64, d*d)
		for i := 0; i < d; i++ {
			for j := i + 1; j < d; j++ {
				v, err := c.Closeness(i, j)
				if err != nil {
					return nil, err
				}
				cm[i*d+j], cm[j*d+i] = v, v
			}
		}
	}
	at := func(i, j int) float64 {
		if v := cm[i*d+j]; !math.IsNaN(v) {
			return v
		}
		return math.Inf(-1)
	}
	bi, bj, best := 0, 1, math.Inf(-1)
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			if v := at(i, j); v > best {
				bi, bj, best = i, j, v
			}
		}
	}
	order := []int{bi, bj}
	taken := make([]bool, d)
	taken[bi], taken[bj] = true, true
	link := make([]float64, d) // closeness to the nearest taken variable
	for v := range link {
		link[v] = max(at(v, bi), at(v, bj))
	}
	for len(order) < d {
		next := -1
		for v := 0; v < d; v++ {
			if !taken[v] && (next < 0 || link[v] > link[next]) {
				next = v
			}
		}
		taken[next] = true
		order = append(order, next)
		for v := 0; v < d; v++ {
			if !taken[v] {
				link[v] = max(link[v], at(v, next))
			}
		}
	}
	return order, nil
}

// internalError reports a broken invariant of the builder (see
// tree.ErrInternal), such as a failed edit of nodes it has just checked.
func internalError(err error) error {
	return fmt.Errorf("quartet: %w: %w", tree.ErrInternal, err)
}

// insert attaches leaf xn (variable x) to the tree.
func insert(t *tree.Tree, xn, x int, varOf map[int]int, cands int, pick func(x int, leaves []int) ([]int, error), resolve func([4]int) (Result, error)) error {
	// The region is a connected set of nodes; x attaches to one of its
	// edges.
	region := map[int]bool{}
	for _, v := range t.Nodes() {
		if v != xn && t.Degree(v) > 0 { // variables not yet inserted are isolated
			region[v] = true
		}
	}
	for {
		if len(region) == 2 {
			var u, v int
			k := 0
			for w := range region {
				if k == 0 {
					u = w
				} else {
					v = w
				}
				k++
			}
			if !t.HasEdge(u, v) {
				return internalError(errors.New("region is not an edge"))
			}
			// u–v is an edge and h, xn are not joined yet: the edits
			// cannot fail.
			h := t.AddHidden()
			if err := t.RemoveEdge(u, v); err != nil {
				return internalError(err)
			}
			for _, e := range [][2]int{{u, h}, {h, v}, {h, xn}} {
				if err := t.AddEdge(e[0], e[1], math.NaN()); err != nil {
					return internalError(err)
				}
			}
			return nil
		}
		c := centroid(t, region)
		if c < 0 {
			return internalError(errors.New("no centroid"))
		}
		nb := t.Neighbors(c)
		if len(nb) != 3 {
			return internalError(fmt.Errorf("centroid of degree %d", len(nb)))
		}
		var repsOf [3][]int
		for i, w := range nb {
			var err error
			if repsOf[i], err = pick(x, nearestLeaves(t, w, c, xn, cands)); err != nil {
				return err
			}
		}
		votes := [3]float64{}
		for _, r1 := range repsOf[0] {
			for _, r2 := range repsOf[1] {
				for _, r3 := range repsOf[2] {
					r, err := resolve([4]int{x, varOf[r1], varOf[r2], varOf[r3]})
					if err != nil {
						return err
					}
					votes[r.Best]++
				}
			}
		}
		// Pairing P01 = {x, r1 | ...} sends x towards branch 0, etc.
		dir := -1
		for i := 0; i < 3; i++ {
			if !region[nb[i]] {
				continue // branch outside the region
			}
			if dir < 0 || votes[i] > votes[dir] {
				dir = i
			}
		}
		// Restrict the region to c plus the component through nb[dir].
		keep := map[int]bool{c: true}
		stack := []int{nb[dir]}
		keep[nb[dir]] = true
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, w := range t.Neighbors(u) {
				if region[w] && !keep[w] && w != c {
					keep[w] = true
					stack = append(stack, w)
				}
			}
		}
		region = keep
	}
}

// centroid returns the node of the region with at least two neighbours in
// it that minimises the size of its largest branch within the region.
func centroid(t *tree.Tree, region map[int]bool) int {
	// The smallest node as root, so that ties between centroids are
	// broken the same way on every run.
	root := -1
	for v := range region {
		if root < 0 || v < root {
			root = v
		}
	}
	// Iterative DFS for subtree sizes within the region.
	parent := map[int]int{root: -1}
	order := []int{root}
	for k := 0; k < len(order); k++ {
		u := order[k]
		for _, w := range t.Neighbors(u) {
			if region[w] {
				if _, ok := parent[w]; !ok {
					parent[w] = u
					order = append(order, w)
				}
			}
		}
	}
	size := make(map[int]int, len(order))
	for k := len(order) - 1; k >= 0; k-- {
		u := order[k]
		size[u]++
		if p := parent[u]; p >= 0 {
			size[p] += size[u]
		}
	}
	n := len(order)
	best, bestMax := -1, math.MaxInt
	for _, u := range order {
		inRegion := 0
		maxBranch := 0
		for _, w := range t.Neighbors(u) {
			if !region[w] {
				continue
			}
			inRegion++
			s := size[w]
			if parent[u] == w {
				s = n - size[u]
			}
			maxBranch = max(maxBranch, s)
		}
		if inRegion >= 2 && t.Degree(u) == 3 && maxBranch < bestMax {
			best, bestMax = u, maxBranch
		}
	}
	return best
}

// nearestLeaves returns up to k observed leaves reached from w without
// passing through c (or the leaf being inserted), nearest first.
func nearestLeaves(t *tree.Tree, w, c, skip, k int) []int {
	var out []int
	type item struct{ v, from int }
	queue := []item{{w, c}}
	for len(queue) > 0 && len(out) < k {
		it := queue[0]
		queue = queue[1:]
		if it.v == skip {
			continue
		}
		if !t.IsHidden(it.v) {
			out = append(out, it.v)
			continue
		}
		for _, x := range t.Neighbors(it.v) {
			if x != it.from {
				queue = append(queue, item{x, it.v})
			}
		}
	}
	return out
}
