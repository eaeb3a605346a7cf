package tree

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// genOptions controls randomTree.
type genOptions struct {
	weirdNames   bool    // names with spaces, quotes, punctuation, unicode
	hiddenProb   float64 // probability that an internal node is hidden
	namedHidden  bool    // give some hidden nodes names
	removeSome   bool    // add and remove spare nodes so identifiers have gaps
	unknownProb  float64 // probability that a length is unknown
	hiddenLeaves int     // number of hidden leaves to attach
}

// randomTree returns a random tree on n ≥ 1 nodes: node i > 0 is joined to
// a uniformly chosen earlier node, which gives nodes of all degrees, degree
// two included. Leaves are observed; internal nodes are hidden with
// probability opt.hiddenProb.
func randomTree(rng *rand.Rand, n int, opt genOptions) *Tree {
	parent := make([]int, n)
	deg := make([]int, n)
	for i := 1; i < n; i++ {
		parent[i] = rng.IntN(i)
		deg[i]++
		deg[parent[i]]++
	}
	t := New()
	ids := make([]int, n)
	for i := range n {
		if opt.removeSome && rng.IntN(3) == 0 {
			spare := t.AddHidden()
			defer t.RemoveNode(spare)
		}
		hidden := deg[i] >= 2 && rng.Float64() < opt.hiddenProb
		var node Node
		switch {
		case !hidden:
			node = Node{Name: randomName(rng, i, opt.weirdNames)}
		case opt.namedHidden && rng.IntN(2) == 0:
			node = Node{Name: "h" + strconv.Itoa(i), Hidden: true}
		default:
			node = Node{Hidden: true}
		}
		id, err := t.AddNode(node)
		if err != nil {
			panic(err)
		}
		ids[i] = id
	}
	for i := 1; i < n; i++ {
		if err := t.AddEdge(ids[i], ids[parent[i]], randomLength(rng, opt.unknownProb)); err != nil {
			panic(err)
		}
	}
	for range opt.hiddenLeaves {
		h := t.AddHidden()
		_ = t.AddEdge(h, ids[rng.IntN(n)], randomLength(rng, opt.unknownProb))
	}
	return t
}

func randomLength(rng *rand.Rand, unknownProb float64) float64 {
	if rng.Float64() < unknownProb {
		return math.NaN()
	}
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return float64(rng.IntN(10))
	case 2:
		return rng.ExpFloat64() * 1e-7
	case 3:
		return rng.ExpFloat64() * 1e25
	}
	return rng.Float64()
}

// randomName returns a name unique to i.
func randomName(rng *rand.Rand, i int, weird bool) string {
	const plain = "abcdefghijklmnopqrstuwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-+*/" // no v: "v" starts the unique suffix
	const odd = " _'()[]:;,\"\t\n\\#é中"
	var sb strings.Builder
	for range rng.IntN(4) {
		if weird && rng.IntN(3) == 0 {
			r := []rune(odd)
			sb.WriteRune(r[rng.IntN(len(r))])
		} else {
			sb.WriteByte(plain[rng.IntN(len(plain))])
		}
	}
	sb.WriteString("v" + strconv.Itoa(i))
	if weird && rng.IntN(4) == 0 {
		sb.WriteString(" ")
	}
	return sb.String()
}

// bruteSplits computes the splits of t edge by edge, each as the sorted names
// of the side without the first observed name, joined by "|".
func bruteSplits(t *Tree) []string {
	names := t.ObservedNames()
	if len(names) == 0 {
		return nil
	}
	first, _ := t.Lookup(names[0])
	seen := map[string]bool{}
	for _, e := range t.Edges() {
		c := t.Clone()
		_ = c.RemoveEdge(e.U, e.V)
		reach := make([]bool, c.MaxID())
		for _, v := range c.Root(e.U).Order {
			reach[v] = true
		}
		if reach[first] { // take the other side
			for i := range reach {
				reach[i] = !reach[i]
			}
		}
		var side []string
		for _, v := range c.Nodes() {
			if reach[v] && !c.IsHidden(v) {
				side = append(side, c.Name(v))
			}
		}
		if len(side) == 0 || len(side) == len(names) {
			continue
		}
		slices.Sort(side)
		seen[strings.Join(side, "|")] = true
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// splitKeys returns the splits in the form of bruteSplits, sorted.
func splitKeys(ss []Split) []string {
	var out []string
	for _, s := range ss {
		_, other := s.Sides()
		out = append(out, strings.Join(other, "|"))
	}
	slices.Sort(out)
	return out
}

func sameLength(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// observedDistances returns the path lengths between all pairs of observed
// nodes, by sorted name, with one traversal per observed node.
func observedDistances(t *Tree) map[[2]string]float64 {
	d := map[[2]string]float64{}
	dist := make([]float64, t.MaxID())
	for _, u := range t.Observed() {
		r := t.Root(u)
		dist[u] = 0
		for _, v := range r.Order[1:] {
			dist[v] = dist[r.Parent[v]] + r.ParentLength[v]
			if !t.IsHidden(v) && t.Name(u) < t.Name(v) {
				d[[2]string{t.Name(u), t.Name(v)}] = dist[v]
			}
		}
	}
	return d
}
