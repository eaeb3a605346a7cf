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
// observed x it is x itself at distance 0. It appends them to out[:0] and
// keeps its stack in *stack.
func reps(t *tree.Tree, x, away, maxReps int, out []rep, stack *[]repItem) []rep {
	out = out[:0]
	if !t.IsHidden(x) {
		return append(out, rep{x, 0})
	}
	st := append((*stack)[:0], repItem{x, away, 0})
	for len(st) > 0 {
		it := st[len(st)-1]
		st = st[:len(st)-1]
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
			st = append(st, repItem{h.To, it.v, d})
		}
	}
	*stack = st // empty, with the capacity it reached
	slices.SortStableFunc(out, func(p, q rep) int { return cmp.Or(cmp.Compare(p.dist, q.dist), p.a-q.a) })
	if len(out) > maxReps {
		out = out[:maxReps]
	}
	return out
}

// repItem is a node reps reaches from, with its path length.
type repItem struct {
	v, from int
	dist    float64
}

// repScratch is the memory of nodeDistance's calls of reps.
type repScratch struct {
	x, y  []rep
	stack []repItem
}

// nodeDistance estimates the distance between nodes x and y of the tree
// under construction, where observed node v is row v of the m×m matrix D
// and hidden nodes are located through observed representatives on their
// far side (Choi et al. 2011, eq. 28 generalised): the average over
// representatives a of x and b of y of D(a,b) − d(a,x) − d(b,y). towardY
// is the neighbour of x on the path to y and towardX that of y.
func nodeDistance(t *tree.Tree, D []float64, m, x, y, towardY, towardX int, sc *repScratch) float64 {
	if !t.IsHidden(x) && !t.IsHidden(y) {
		return D[x*m+y]
	}
	const maxReps = 4
	sc.x = reps(t, x, towardY, maxReps, sc.x, &sc.stack)
	sc.y = reps(t, y, towardX, maxReps, sc.y, &sc.stack)
	rx, ry := sc.x, sc.y
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

// tieZ is the number of standard errors within which two estimated
// distances count as tied in CLGrouping's spanning tree (see resolveTies).
const tieZ = 2

// clgroup runs CLGrouping (Choi et al. 2011, §5.4 and §6.3): the minimum
// spanning tree of the m observed nodes under D, then the inner learner on
// the closed neighbourhood of every internal node of the MST, replacing the
// neighbourhood by the learned subtree. Observed node i has identifier i.
// If resolve, the spanning tree's choices that are within sampling error
// of D (estimated from n rows; 0: exact distances) are first made
// consistent (resolveTies, with eps the contraction threshold). CLNJ does
// this; CLRG does not yet: it recovers more mixed trees with it too (37
// rather than 33 of 50 at 100,000 rows in experiment mixed), but on the
// README's HMM its recursive grouping then learned different trees from
// statistics merged from shards and from the data, whose distances differ
// by rounding (1e-12), which needs a look at recursive grouping first.
func clgroup(names []string, D []float64, n int, resolve bool, eps float64, inner innerFunc) (*tree.Tree, int, error) {
	m := len(names)
	parent := spanning(m, D, false)
	t, err := treeFromParents(names, parent, D)
	if err != nil {
		return nil, 0, err
	}
	if resolve {
		if err := resolveTies(t, D, m, n, eps); err != nil {
			return nil, 0, err
		}
	}
	var internal []int
	for v := 0; v < m; v++ {
		if t.Degree(v) >= 2 {
			internal = append(internal, v)
		}
	}
	added := 0
	var sc repScratch
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
					v = nodeDistance(t, D, m, x, y, y, x, &sc)
				} else {
					v = nodeDistance(t, D, m, x, y, i, i, &sc)
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

// resolveTies makes the spanning tree t of the m observed nodes choose
// surrogates consistently where its choices are within sampling error of
// D (estimated from n rows; 0: exact distances, within rounding).
//
// CLGrouping is exact when the spanning tree is the true tree with every
// hidden node contracted into its surrogate, the observed node nearest to
// it (Choi et al. 2011, Lemma 8). When a hidden node h has two observed
// nodes a and b at nearly equal distances (siblings under h, or a below h
// and b one hidden node further), every other node c whose path to them
// passes through h has D(c, b) − D(c, a) = d(h, b) − d(h, a), and with
// estimated distances each such c hangs on a or on b by the sign of its
// own noise. h's neighbours are then split between the neighbourhoods of
// a and b, and the inner learner, which sees one neighbourhood at a time,
// cannot put them back around one hidden node.
//
// For every spanning-tree edge a–b between internal nodes, the neighbours
// c of a (other than b) with D(c, b) − D(c, a) within tieZ standard errors
// of 0, and those of b with D(c, a) − D(c, b) so, could each have hung on
// the other; when both sets are non-empty, h's neighbours are split. The
// split is harmless when h is the hidden node a and b hang on (the tied
// nodes are their siblings): the inner learner on b's neighbourhood then
// makes a hidden node next to the one made for a's, and the contraction
// of short edges rejoins them, whereas moving them all into one
// neighbourhood hands one inner learner a large star, which it resolves
// worse from few rows (the spanning tree of exact distances does worse on
// the double star of Choi et al. (2011) at 5,000 rows than the sampled
// one). So the ties are resolved only when the internal edge of the
// quartets ab|cc′ (c tied on a's side, c′ on b's), by the four-point
// formula and averaged over them, is longer than eps, the contraction
// threshold, by more than one standard error of that average (the
// distances' errors taken as independent): then h lies beyond a's and b's
// own hidden node. Without the margin, noise alone moved whole
// neighbourhoods where the distances are long and noisy (4-state
// variables through 3-state hidden nodes at 3,000 rows, standard errors
// near 6: the default learn fell to the Chow–Liu tree, 820 worse in BIC),
// since eps is 0 under the contraction by BIC. The margin costs some of
// the gain on mixed trees at 10⁴ rows (experiment mixed: 42 → 39 of 50
// exact, 49 → 48 at 10⁵). Each tied
// node estimates the same d(h, b) − d(h, a), so their inverse-variance
// weighted mean decides for all of them at once: all move to a if it is
// positive (a is nearer h), else to b. The spanning tree stays a spanning
// tree of almost the same weight, and is what the exact distances would
// give with the nearer of a and b as h's surrogate. The standard error of
// an estimated distance d from n rows is taken as √((e^{2d} − 2 +
// e^{−2d})/n), that of −log|ρ̂| for a correlation (as in recursive
// grouping's weights), and those of the two distances are added (which
// overstates it, since they share c). From exact distances only ties
// within rounding count, and the spanning tree already breaks those
// consistently.
func resolveTies(t *tree.Tree, D []float64, m, n int, eps float64) error {
	var ed edits
	// dvar is n times the sampling variance of a distance d.
	dvar := func(d float64) float64 { return math.Exp(2*d) - 2 + math.Exp(-2*d) }
	variance := func(c, a, b int) float64 {
		return (dvar(D[c*m+a]) + dvar(D[c*m+b])) / float64(n)
	}
	// tied returns the neighbours c ≠ b of a as near to b as to a within
	// sampling error.
	tied := func(a, b int) []int {
		var out []int
		for _, c := range t.Neighbors(a) {
			if c == b {
				continue
			}
			gap := D[c*m+b] - D[c*m+a]
			tol := 1e-12 * math.Max(1, math.Abs(D[c*m+b]))
			if n > 0 {
				tol = math.Max(tol, tieZ*math.Sqrt(variance(c, a, b)))
			}
			if gap <= tol {
				out = append(out, c)
			}
		}
		return out
	}
	for a := 0; a < m; a++ {
		for _, b := range slices.Clone(t.Neighbors(a)) {
			if b < a || !t.HasEdge(a, b) || t.Degree(a) < 2 || t.Degree(b) < 2 {
				continue // (an earlier move may have taken b away from a)
			}
			ta, tb := tied(a, b), tied(b, a)
			if len(ta) == 0 || len(tb) == 0 {
				continue
			}
			// The split is harmless when the tied nodes hang on the hidden
			// node a and b hang on: the four-point internal edge of ab|cc′
			// is then 0, and the contraction rejoins the two halves.
			inner, innerVar := 0.0, 0.0
			for _, c := range ta {
				for _, c2 := range tb {
					inner += 0.25*(D[a*m+c]+D[a*m+c2]+D[b*m+c]+D[b*m+c2]) - 0.5*(D[a*m+b]+D[c*m+c2])
					if n > 0 {
						innerVar += (dvar(D[a*m+c])+dvar(D[a*m+c2])+dvar(D[b*m+c])+dvar(D[b*m+c2]))/16 + (dvar(D[a*m+b])+dvar(D[c*m+c2]))/4
					}
				}
			}
			pairs := float64(len(ta) * len(tb))
			// The edge must be longer than eps beyond sampling error
			// (tieZ standard errors of one quartet's estimate, the
			// errors taken as independent): with eps 0 (the contraction
			// by BIC) and noisy distances, noise alone would otherwise
			// move whole neighbourhoods.
			if inner/pairs <= eps+math.Sqrt(innerVar/pairs/pairs/float64(max(n, 1))) {
				continue
			}
			var sw, swx float64
			for _, c := range append(slices.Clone(ta), tb...) {
				w := 1.0
				if n > 0 {
					w = 1 / math.Max(variance(c, a, b), 1e-300)
				}
				sw += w
				swx += w * (D[c*m+b] - D[c*m+a])
			}
			if !(sw > 0) {
				continue // (no usable evidence: distances too long to weigh)
			}
			from, to, move := a, b, ta
			if swx >= 0 {
				from, to, move = b, a, tb
			}

			for _, c := range move {
				ed.check(t.RemoveEdge(c, from))
				ed.check(t.AddEdge(c, to, D[c*m+to]))
			}
		}
	}
	return ed.err
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
