package structure

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/latentree/latentree/tree"
)

// rep is an observed node standing for a hidden one: a lies on the far
// side of the hidden node and dist is the tree path length between them.
type rep struct {
	a    int
	dist float64
}

// reps returns the observed nodes reachable from x without passing through
// the neighbour away, stopping at the first observed node on every path,
// with their path lengths from x, nearest first (at most max). For an
// observed x it is x itself at distance 0.
func reps(t *tree.Tree, x, away, maxReps int) []rep {
	if !t.IsHidden(x) {
		return []rep{{x, 0}}
	}
	var out []rep
	type item struct {
		v, from int
		dist    float64
	}
	stack := []item{{x, away, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, h := range t.Adjacent(it.v) {
			if h.To == it.from {
				continue
			}
			l := h.Length
			if math.IsNaN(l) {
				l = 0
			}
			d := it.dist + l
			if !t.IsHidden(h.To) {
				out = append(out, rep{h.To, d})
				continue
			}
			stack = append(stack, item{h.To, it.v, d})
		}
	}
	slices.SortStableFunc(out, func(p, q rep) int { return cmp.Or(cmp.Compare(p.dist, q.dist), p.a-q.a) })
	if len(out) > maxReps {
		out = out[:maxReps]
	}
	return out
}

// nodeDistance estimates the distance between nodes x and y of the tree
// under construction, where observed node v is row v of the m×m matrix D
// and hidden nodes are located through observed representatives on their
// far side (Choi et al. 2011, eq. 28 generalised): the average over
// representatives a of x and b of y of D(a,b) − d(a,x) − d(b,y). towardY
// is the neighbour of x on the path to y and towardX that of y.
func nodeDistance(t *tree.Tree, D []float64, m, x, y, towardY, towardX int) float64 {
	if !t.IsHidden(x) && !t.IsHidden(y) {
		return D[x*m+y]
	}
	const maxReps = 4
	rx := reps(t, x, towardY, maxReps)
	ry := reps(t, y, towardX, maxReps)
	sum, cnt := 0.0, 0
	for _, a := range rx {
		for _, b := range ry {
			sum += D[a.a*m+b.a] - a.dist - b.dist
			cnt++
		}
	}
	if cnt == 0 {
		return math.NaN()
	}
	return math.Max(0, sum/float64(cnt))
}

// innerFunc learns a latent tree over the nodes ids of t from their
// distances d, adding hidden nodes to t; it returns how many it added.
type innerFunc func(t *tree.Tree, ids []int, d []float64) (int, error)

// clgroup runs CLGrouping (Choi et al. 2011, §5.4 and §6.3): the minimum
// spanning tree of the m observed nodes under D, then the inner learner on
// the closed neighbourhood of every internal node of the MST, replacing the
// neighbourhood by the learned subtree. Observed node i has identifier i.
func clgroup(names []string, D []float64, inner innerFunc) (*tree.Tree, int, error) {
	m := len(names)
	parent := spanning(m, D, false)
	t, err := treeFromParents(names, parent, D)
	if err != nil {
		return nil, 0, err
	}
	var internal []int
	for v := 0; v < m; v++ {
		if t.Degree(v) >= 2 {
			internal = append(internal, v)
		}
	}
	added := 0
	for _, i := range internal {
		nbd := append([]int{i}, t.Neighbors(i)...)
		slices.Sort(nbd[1:])
		k := len(nbd)
		d := make([]float64, k*k)
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				x, y := nbd[a], nbd[b]
				var v float64
				if a == 0 {
					v = nodeDistance(t, D, m, x, y, y, x)
				} else {
					v = nodeDistance(t, D, m, x, y, i, i)
				}
				d[a*k+b], d[b*k+a] = v, v
			}
		}
		sub := tree.New()
		ids := make([]int, k)
		for a, x := range nbd {
			n := t.Node(x)
			if n.Hidden {
				n.Name = ""
			}
			if ids[a], err = sub.AddNode(n); err != nil {
				return nil, 0, fmt.Errorf("structure: %w: %w", tree.ErrInternal, err)
			}
		}
		na, err := inner(sub, ids, d)
		if err != nil {
			return nil, 0, err
		}
		added += na
		subToT := make([]int, sub.MaxID())
		for s := range subToT {
			subToT[s] = -1
		}
		for a, s := range ids {
			subToT[s] = nbd[a]
		}
		if _, err := t.ReplaceSubtree(nbd, sub, subToT); err != nil {
			return nil, 0, err
		}
	}
	return t, added, nil
}

// blindTransform applies the blind transformation of CLBlind (Choi et al.
// 2011, §5.3) to the MST t of observed nodes 0..m−1: every internal node i
// is replaced by a new hidden node h joined to i and to i's neighbours.
func blindTransform(t *tree.Tree, m int) (int, error) {
	var ed edits
	added := 0
	for i := 0; i < m; i++ {
		if t.Degree(i) < 2 {
			continue
		}
		nb := t.Adjacent(i)
		moved := slices.Clone(nb)
		h := t.AddHidden()
		added++
		for _, x := range moved {
			ed.check(t.RemoveEdge(i, x.To))
			ed.check(t.AddEdge(h, x.To, math.NaN()))
		}
		ed.check(t.AddEdge(i, h, math.NaN()))
	}
	return added, ed.err
}

// fitLengths sets the length of every edge of t from the observed
// distances D (observed node v is row v of the m×m matrix) by the
// three- and four-point formulas, locating each hidden endpoint by
// observed representatives in two of its other branches; it is exact for
// additive distances. Negative estimates become 0.
func fitLengths(t *tree.Tree, D []float64, m int) error {
	var ed edits
	// side returns representatives of node u on its side of the edge to v:
	// u itself if observed, else the nearest observed nodes (by hops) in
	// two branches of u other than v's.
	side := func(u, v int) (int, int) {
		if !t.IsHidden(u) {
			return u, u
		}
		var found []int
		for _, w := range t.Neighbors(u) {
			if w == v {
				continue
			}
			if a := nearestObserved(t, w, u); a >= 0 {
				found = append(found, a)
			}
			if len(found) == 2 {
				break
			}
		}
		switch len(found) {
		case 0:
			return -1, -1
		case 1:
			return found[0], found[0]
		}
		return found[0], found[1]
	}
	for _, e := range t.Edges() {
		a, b := side(e.U, e.V)
		c, f := side(e.V, e.U)
		if a < 0 || c < 0 {
			continue
		}
		l := 0.25*(D[a*m+c]+D[a*m+f]+D[b*m+c]+D[b*m+f]) - 0.5*D[a*m+b] - 0.5*D[c*m+f]
		ed.check(t.SetEdgeLength(e.U, e.V, math.Max(0, l)))
	}
	return ed.err
}

// nearestObserved returns the observed node closest in hops to w within
// the branch entered from u (w itself if observed), or −1.
func nearestObserved(t *tree.Tree, w, u int) int {
	type item struct{ v, from int }
	queue := []item{{w, u}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if !t.IsHidden(it.v) {
			return it.v
		}
		for _, x := range t.Neighbors(it.v) {
			if x != it.from {
				queue = append(queue, item{x, it.v})
			}
		}
	}
	return -1
}
