package quartetlearn

import (
	"math/rand/v2"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
)

// searchResult is what the quartet search found from one anchor.
type searchResult struct {
	pass            []verdict
	tested, pretest int
}

// searchQuartets looks for singly-coupled quartets when there are too many
// 4-cliques to test them all. From each anchor effect it runs a repair
// search: start from a random 4-clique of the dependence graph through
// the anchor; test it; when it fails, the pattern of the three unfoldings
// says which pair of members is coupled by a second source (a second
// source that is a parent of exactly two members x, z raises the rank of
// the two unfoldings that separate x from z, not of the one that keeps
// them together), so one member of that pair — or, without a clear
// pattern, a random member — is replaced by a random common neighbour of
// the other three. A member that fails PRETEST is replaced at random. The
// search stops after budget tests or found passing quartets. Each anchor
// draws from its own generator (seed, anchor), so the result does not
// depend on the number of workers.
func searchQuartets(mo moments, learned *learnedIndex, upto int, adj []bitset, anchors bitset, budget, found int, seed uint64, r resolved) ([]verdict, int, int) {
	m := len(adj)
	var list []int
	for a := range m {
		if (anchors == nil || anchors.has(a)) && adj[a].count() >= 3 {
			list = append(list, a)
		}
	}
	// Members are drawn with weight 1/degree²: an effect with few
	// dependent effects has few parents, so fewer second sources couple
	// it to the others.
	weight := make([]float64, m)
	for a := range m {
		d := float64(adj[a].count())
		if d > 0 {
			weight[a] = 1 / (d * d)
		}
	}
	results := make([]searchResult, len(list))
	parallel.For(r.workers, len(list), func(_, i int) {
		results[i] = searchFrom(mo, learned, upto, adj, weight, list[i], budget, found, seed, r)
	})
	seen := make(map[quartetKey]bool)
	var pass []verdict
	tested, pretest := 0, 0
	for _, res := range results {
		tested += res.tested
		pretest += res.pretest
		for _, v := range res.pass {
			if !seen[v.q] {
				seen[v.q] = true
				pass = append(pass, v)
			}
		}
	}
	return pass, tested, pretest
}

// searchFrom runs the repair search of searchQuartets from anchor a.
func searchFrom(mo moments, learned *learnedIndex, upto int, adj []bitset, weight []float64, a, budget, found int, seed uint64, r resolved) searchResult {
	var res searchResult
	rng := rand.New(rand.NewPCG(seed, uint64(a)))
	m := len(adj)
	s := &searcher{adj: adj, weight: weight, a: a, rng: rng, cand: newBitset(m), tmp: newBitset(m), q: make([]int, 4)}
	var t [16]float64
	sorted := make([]int, 4)
	fresh := true
	misses := 0
	for res.tested < budget && len(res.pass) < found {
		if fresh {
			if !s.start() {
				misses++
				if misses > 20 {
					break
				}
				continue
			}
			fresh = false
		}
		copy(sorted, s.q)
		slices.Sort(sorted)
		res.tested++
		v := testQuartet(mo, learned, upto, sorted, &t, r, true)
		if v.pretest {
			res.pretest++
		}
		if v.pass {
			// A quartet that the sources already found in this round
			// explain is no news: keep searching.
			if len(learned.sources) > upto {
				if w := testQuartet(mo, learned, len(learned.sources), sorted, &t, r, true); !w.pass {
					fresh = true
					continue
				}
			}
			res.pass = append(res.pass, v)
			fresh = true
			continue
		}
		if !s.replace(s.culprit(v, sorted, r.rankTol)) {
			fresh = true
		}
	}
	return res
}

// searcher is the state of one anchor's repair search: the quartet q
// (the anchor a in position 0) and scratch space.
type searcher struct {
	adj       []bitset
	weight    []float64
	a         int
	rng       *rand.Rand
	cand, tmp bitset
	members   []int
	cum       []float64
	q         []int
}

// pick draws a member of set s not in avoid with probability
// proportional to its weight; −1 when there is none.
func (sr *searcher) pick(s bitset, avoid []int) int {
	sr.members, sr.cum = sr.members[:0], sr.cum[:0]
	total := 0.0
	s.members(func(i int) bool {
		if !slices.Contains(avoid, i) {
			sr.members = append(sr.members, i)
			total += sr.weight[i]
			sr.cum = append(sr.cum, total)
		}
		return true
	})
	if len(sr.members) == 0 || !(total > 0) {
		return -1
	}
	u := sr.rng.Float64() * total
	j, _ := slices.BinarySearch(sr.cum, u)
	return sr.members[min(j, len(sr.members)-1)]
}

// start draws a random 4-clique through the anchor into q.
func (sr *searcher) start() bool {
	sr.q[0] = sr.a
	copy(sr.cand, sr.adj[sr.a])
	for k := 1; k < 4; k++ {
		x := sr.pick(sr.cand, nil)
		if x < 0 {
			return false
		}
		sr.q[k] = x
		and(sr.tmp, sr.cand, sr.adj[x])
		sr.cand, sr.tmp = sr.tmp, sr.cand
	}
	return true
}

// replace puts in position k of q a random common neighbour of the
// others.
func (sr *searcher) replace(k int) bool {
	first := true
	for j := range 4 {
		if j == k {
			continue
		}
		if first {
			copy(sr.cand, sr.adj[sr.q[j]])
			first = false
		} else {
			and(sr.cand, sr.cand, sr.adj[sr.q[j]])
		}
	}
	x := sr.pick(sr.cand, sr.q)
	if x < 0 {
		return false
	}
	sr.q[k] = x
	return true
}

// culprit returns the position in q of the member to replace after the
// failed test v of q (sorted: q in increasing order), never the anchor's
// (position 0): when exactly one unfolding passes (third singular value
// at most tol), a member of one of the pairs it keeps together, else a
// random member.
func (sr *searcher) culprit(v verdict, sorted []int, tol float64) int {
	a, rng := sr.a, sr.rng
	k := 1 + rng.IntN(3)
	if !v.pretest {
		return k
	}
	passing := -1
	n := 0
	for u := range 3 {
		if v.singular[u] <= tol {
			passing, n = u, n+1
		}
	}
	if n != 1 {
		return k
	}
	// Positions (in sorted order) kept together by the passing
	// unfolding: (01|23), (02|13), (03|12).
	pairs := [3][2][2]int{{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}, {{0, 3}, {1, 2}}}
	pr := pairs[passing][rng.IntN(2)]
	x := sorted[pr[rng.IntN(2)]]
	if x == a {
		x = sorted[pr[0]+pr[1]-slices.Index(sorted, a)]
		if pr[0] != slices.Index(sorted, a) && pr[1] != slices.Index(sorted, a) {
			x = sorted[pr[rng.IntN(2)]]
		}
	}
	if x != a {
		k = slices.Index(sr.q, x)
	}
	return k
}
