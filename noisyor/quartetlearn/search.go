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

func searchFrom(mo moments, learned *learnedIndex, upto int, adj []bitset, weight []float64, a, budget, found int, seed uint64, r resolved) searchResult {
	var res searchResult
	rng := rand.New(rand.NewPCG(seed, uint64(a)))
	m := len(adj)
	cand, tmp := newBitset(m), newBitset(m)
	var members []int
	var cum []float64
	pick := func(s bitset, avoid []int) int {
		members, cum = members[:0], cum[:0]
		total := 0.0
		s.members(func(i int) bool {
			if !slices.Contains(avoid, i) {
				members = append(members, i)
				total += weight[i]
				cum = append(cum, total)
			}
			return true
		})
		if len(members) == 0 || !(total > 0) {
			return -1
		}
		u := rng.Float64() * total
		j, _ := slices.BinarySearch(cum, u)
		return members[min(j, len(members)-1)]
	}
	q := make([]int, 4)
	// start draws a random 4-clique through a into q.
	start := func() bool {
		q[0] = a
		copy(cand, adj[a])
		for k := 1; k < 4; k++ {
			x := pick(cand, nil)
			if x < 0 {
				return false
			}
			q[k] = x
			and(tmp, cand, adj[x])
			cand, tmp = tmp, cand
		}
		return true
	}
	// replace puts in position k a random common neighbour of the others.
	replace := func(k int) bool {
		first := true
		for j := range 4 {
			if j == k {
				continue
			}
			if first {
				copy(cand, adj[q[j]])
				first = false
			} else {
				and(cand, cand, adj[q[j]])
			}
		}
		x := pick(cand, q)
		if x < 0 {
			return false
		}
		q[k] = x
		return true
	}
	var t [16]float64
	sorted := make([]int, 4)
	fresh := true
	misses := 0
	for res.tested < budget && len(res.pass) < found {
		if fresh {
			if !start() {
				misses++
				if misses > 20 {
					break
				}
				continue
			}
			fresh = false
		}
		copy(sorted, q)
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
		// Which member to replace (never the anchor, position 0).
		k := 1 + rng.IntN(3)
		if v.pretest {
			passing := -1
			n := 0
			for u := range 3 {
				if v.singular[u] <= r.rankTol {
					passing, n = u, n+1
				}
			}
			if n == 1 {
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
					k = slices.Index(q, x)
				}
			}
		}
		if !replace(k) {
			fresh = true
		}
	}
	return res
}
