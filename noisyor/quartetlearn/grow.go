package quartetlearn

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/latentree/latentree/noisyor"
)

// residualPair is a pair of effects whose dependence the current network
// does not explain: Z standard errors of excess log PMI (on the negative
// moments) over the network's exact PMI.
type residualPair struct {
	a, b   int
	excess float64 // log PMI_data − log PMI_network
	z      float64
}

// residualPairs returns every pair of effects whose excess log PMI over
// the network n is more than zTol standard errors (delta method on the
// counts of the rows observing both), strongest first.
func residualPairs(n *noisyor.Network, mo moments, zTol float64) ([]residualPair, [][]float64) {
	m := mo.numEffects()
	zm := make([][]float64, m)
	for a := range zm {
		zm[a] = make([]float64, m)
	}
	var out []residualPair
	var t [4]float64
	set := []int{0, 0}
	// Exact single moments of the network.
	single := make([]float64, m)
	for a := range m {
		single[a] = n.NegMoment([]int{a})
	}
	for a := range m {
		for b := a + 1; b < m; b++ {
			set[0], set[1] = a, b
			rows := mo.neg(set, t[:])
			if rows == 0 {
				continue
			}
			// t[0] = N(ab), t[1] = N(a), t[2] = N(b) (bit 1: summed out).
			nab, na, nb := t[0], t[1], t[2]
			if !(nab > 0 && na > 0 && nb > 0) {
				continue
			}
			mab := n.NegMoment(set)
			if !(mab > 0 && single[a] > 0 && single[b] > 0) {
				continue
			}
			ex := math.Log(nab/(na*nb)) - math.Log(mab/(single[a]*single[b]))
			// Delta method, multinomial counts: n·Var(log PMI) =
			// 1/N(ab) − 1/N(a) − 1/N(b) + 2·PMI − 1, which is 0 only
			// when the pair's table is degenerate.
			v := (1/nab - 1/na - 1/nb + 2*nab/(na*nb) - 1) / float64(rows)
			if !(v > 0) {
				continue
			}
			// The excess is negative dependence's sign too: only excess
			// positive dependence (PMI above the network's) is a missing
			// shared source.
			z := ex / math.Sqrt(v)
			zm[a][b], zm[b][a] = z, z
			if z > zTol {
				out = append(out, residualPair{a: a, b: b, excess: ex, z: z})
			}
		}
	}
	slices.SortFunc(out, func(x, y residualPair) int { return cmp.Compare(y.z, x.z) })
	return out, zm
}

// zBonferroni returns the one-sided z threshold of level alpha over k
// tests.
func zBonferroni(alpha float64, k int) float64 {
	return math.Sqrt2 * math.Erfcinv(2*alpha/float64(max(1, k)))
}

// cluster grows the candidate children of a new source from a seed
// pair: while some effect's combined evidence of dependence with the
// members, Σ_y z(x, y)/√|members| (Stouffer's sum of the residual
// z-scores), exceeds zAdd, the effect with the largest is added. A
// source's weaker children are dependent on each other only a little,
// but on many of its children at once.
func cluster(seed residualPair, zm [][]float64, zAdd float64) []int {
	m := len(zm)
	members := []int{seed.a, seed.b}
	in := make([]bool, m)
	in[seed.a], in[seed.b] = true, true
	sum := make([]float64, m)
	for x := range m {
		sum[x] = zm[x][seed.a] + zm[x][seed.b]
	}
	for {
		best, bs := -1, 0.0
		for x := range m {
			if !in[x] && (best < 0 || sum[x] > bs) {
				best, bs = x, sum[x]
			}
		}
		if best < 0 || bs/math.Sqrt(float64(len(members))) <= zAdd {
			return members
		}
		members = append(members, best)
		in[best] = true
		for x := range m {
			sum[x] += zm[x][best]
		}
	}
}

// initSource gives the candidate source on members (seed pair first) its
// starting prior and failures from the residual moments, the network's
// sources subtracted off: MIXTURE on the quartet of the seed pair and the
// next two members, and each other member's failure from its pairwise
// moments with the seed (pairFailure). Without a usable quartet it
// starts at prior 0.1 and failures 0.5 and leaves the rest to EM.
func initSource(n *noisyor.Network, mo moments, members []int) noisyor.Source {
	learned := newLearnedIndex(len(n.Effects))
	for i := range n.Sources {
		learned.add(&n.Sources[i])
	}
	all := len(learned.sources)
	s := noisyor.Source{Prior: 0.1}
	fail := make(map[int]float64, len(members))
	if len(members) >= 4 {
		set := members[:4]
		var t [16]float64
		if mo.neg(set, t[:]) > 0 {
			learned.adjust(set, t[:], all)
			joint := t
			noisyor.NegToJoint(joint[:], 4)
			if p, f, ok := quartetMixture(&joint); ok && p > 0.005 && p < 0.6 {
				s.Prior = p
				for k, a := range set {
					fail[a] = clampFail(f[k])
				}
				var t4 [4]float64
				pair := []int{members[0], 0}
				for _, x := range members[4:] {
					pair[1] = x
					if fail[members[0]] >= 1 || mo.neg(pair, t4[:]) == 0 {
						continue
					}
					learned.adjust(pair, t4[:], all)
					if fx, ok := pairFailure(t4[0], t4[1], t4[2], fail[members[0]], p); ok {
						fail[x] = fx
					}
				}
			}
		}
	}
	for _, a := range members {
		f, ok := fail[a]
		if !ok || f >= 0.98 || f <= 0.01 {
			f = 0.5
		}
		s.Children = append(s.Children, noisyor.Child{Effect: a, Failure: f})
	}
	slices.SortFunc(s.Children, func(x, y noisyor.Child) int { return x.Effect - y.Effect })
	return s
}

// withSource returns a copy of n with s added and each of its children's
// leak lowered so that the child's marginal is unchanged.
func withSource(n *noisyor.Network, s noisyor.Source) *noisyor.Network {
	out := n.Clone()
	if out.Leak == nil {
		out.Leak = make([]float64, len(out.Effects))
	}
	for _, c := range s.Children {
		keep := (1 - out.Leak[c.Effect]) / (1 - s.Prior + s.Prior*c.Failure)
		out.Leak[c.Effect] = min(max(1-keep, 1e-6), 1-1e-9)
	}
	s.Name = freeName(out)
	out.Sources = append(out.Sources, s)
	return out
}

// bic is the BIC score to maximise: log-likelihood − κ·ln(rows)/2.
func bic(n *noisyor.Network, ll float64, rows int) float64 {
	return ll - float64(n.NumParams())*math.Log(float64(rows))/2
}

// Stage reports one stage of Learn beyond the paper's.
type Stage struct {
	Name     string `json:"name"`
	Tested   int    `json:"tested"`
	Accepted int    `json:"accepted"`
	// Trimmed counts the edges removed because they explain too few
	// activations to pay for themselves, and Removed the sources left with
	// fewer than two children by that (residual stage).
	Trimmed int `json:"trimmed,omitempty"`
	Removed int `json:"removed,omitempty"`
	// Extended counts the candidates kept as more children of a source
	// already there rather than as a new source (residual stage; not in
	// Accepted).
	Extended int `json:"extended,omitempty"`
	// Merged counts the pairs of sources joined into one by the merge
	// step after the residual stage (mergeSources).
	Merged int           `json:"merged,omitempty"`
	Time   time.Duration `json:"time_ns"`
}

// growOpts are the settings of the residual stage.
type growOpts struct {
	zTol     float64
	zAdd     float64 // cluster's threshold
	emIter   int
	patience int // consecutive rejections before stopping
	workers  int
}

// residualStage runs the residual stage (grow) on the network of res and
// polishes the result by EM to convergence when it added sources.
func residualStage(res *Result, b *noisyor.Binary, opt Options) error {
	g := growOpts{zTol: opt.ResidualZ, emIter: opt.ResidualIter, patience: opt.Patience, workers: opt.Workers}
	if g.zTol < 0 || !finite(g.zTol) {
		return fmt.Errorf("noisyor: ResidualZ is %v, want a finite value ≥ 0", g.zTol)
	}
	if g.emIter < 0 || g.patience < 0 {
		return fmt.Errorf("noisyor: ResidualIter %d and Patience %d must not be negative", g.emIter, g.patience)
	}
	m := len(b.Names)
	if g.zTol == 0 {
		g.zTol = zBonferroni(DefaultResidualAlpha, m*(m-1)/2)
	}
	if g.emIter == 0 {
		g.emIter = DefaultResidualIter
	}
	if g.patience == 0 {
		g.patience = DefaultPatience
	}
	g.zAdd = zBonferroni(DefaultResidualAlpha, m)
	res.ResidualZ = g.zTol
	n, ll := res.Network, res.LogLik
	if math.IsNaN(ll) {
		// No source yet (nothing to polish): the leaks alone, fitted.
		fit, em, err := n.FitEM(b, noisyor.EMOptions{Workers: g.workers})
		if err != nil {
			return err
		}
		n, ll = fit, em.LogLik
	}
	before := make(map[string]bool, len(n.Sources))
	for _, src := range n.Sources {
		before[src.Name] = true
	}
	net, ll, st := grow(n, ll, b, g)
	if st.Accepted+st.Extended > 0 {
		t0 := time.Now()
		fit, em, err := net.FitEM(b, noisyor.EMOptions{Workers: g.workers})
		if err == nil {
			net, ll = fit, em.LogLik
			res.Polish = em
			var last *noisyor.EMResult
			net, ll, last, st.Merged = mergeSources(net, ll, b, before, g.workers)
			if last != nil {
				res.Polish = last
			}
			// The final polish may leave edges that pay for nothing
			// (failure ≈ 1): trimmed one at a time while that improves
			// the BIC.
			var k, gone int
			net, ll, last, k, gone = trimGreedy(net, ll, b, g.workers)
			if last != nil {
				res.Polish = last
			}
			st.Trimmed += k
			st.Removed += gone
		}
		st.Time += time.Since(t0)
	}
	res.Network, res.LogLik = net, ll
	res.Stages = append(res.Stages, st)
	return nil
}

// grow is the residual stage: while the data hold a pair of effects more
// dependent than the network n explains (residualPairs), the strongest
// pair not yet tried seeds a candidate source whose children are the
// effects dependent on the pair (cluster), started from the residual
// moments (initSource); the candidate added, and the alternative of
// giving the members to the source that already has most of them
// (overlapping, withChildren), are first screened on the columns of
// their changed sources' children (screen: EM on those columns alone,
// where it is cheap); each that passes is added and the whole network
// polished by g.emIter EM updates, and the better is kept when its BIC
// beats that of the network itself after g.emIter EM updates.
// It stops when no untried pair is left or after g.patience rejections
// in a row, and returns the network, its log-likelihood and the stage's
// report.
func grow(n *noisyor.Network, ll float64, b *noisyor.Binary, g growOpts) (*noisyor.Network, float64, Stage) {
	t0 := time.Now()
	st := Stage{Name: "residual"}
	mo := newDataMoments(b)
	tried := make(map[[2]int]bool)
	cur := bic(n, ll, b.Rows)
	var base *noisyor.Network // nil: to be computed for the current n
	baseLL, baseScore := ll, cur
	fails := 0
	for fails < g.patience {
		pairs, zm := residualPairs(n, mo, g.zTol)
		var seed *residualPair
		for i := range pairs {
			if !tried[[2]int{pairs[i].a, pairs[i].b}] {
				seed = &pairs[i]
				break
			}
		}
		if seed == nil {
			break
		}
		members := cluster(*seed, zm, g.zAdd)
		tried[[2]int{seed.a, seed.b}] = true
		st.Tested++
		s := initSource(n, mo, members)
		starts := []*noisyor.Network{withSource(n, s)}
		set := members
		if k := overlapping(n, members); k >= 0 {
			starts = append(starts, withChildren(n, k, s))
			set = effectsOf(&s, &n.Sources[k])
		} else {
			set = effectsOf(&s)
		}
		// The screen: on the columns of the members (and of the source
		// they would extend) alone, where EM is cheap, a start must
		// beat the network's BIC to be polished on the whole data.
		starts = screen(n, starts, b, set, g.workers)
		if len(starts) > 0 && base == nil {
			// The baseline: the current network given the same EM
			// budget as a candidate, so that a candidate is not
			// credited with the gain of EM still converging on the
			// sources it shares with the network.
			base, baseLL, baseScore = n, ll, cur
			if fit, em, err := n.FitEM(b, noisyor.EMOptions{MaxIter: g.emIter, Workers: g.workers}); err == nil {
				if sc := bic(fit, em.LogLik, b.Rows); sc > cur {
					base, baseLL, baseScore = fit, em.LogLik, sc
				}
			}
		}
		var best *noisyor.Network
		bestLL, bestScore, extended := 0.0, baseScore, false
		for _, start := range starts {
			fit, em, err := start.FitEM(b, noisyor.EMOptions{MaxIter: g.emIter, Workers: g.workers})
			if err != nil {
				// The candidate makes the E-step too wide: rejected.
				continue
			}
			if sc := bic(fit, em.LogLik, b.Rows); sc > bestScore {
				best, bestLL, bestScore, extended = fit, em.LogLik, sc, len(start.Sources) == len(n.Sources)
			}
		}
		if best != nil {
			n, ll, cur = best, bestLL, bestScore
			base = nil
			if trimmed, k, gone := trimEdges(n, b); k > 0 {
				if fit, em, err := trimmed.FitEM(b, noisyor.EMOptions{MaxIter: trimIter, Workers: g.workers}); err == nil {
					if sc := bic(fit, em.LogLik, b.Rows); sc > cur {
						n, ll, cur = fit, em.LogLik, sc
						st.Trimmed += k
						st.Removed += gone
					}
				}
			}
			if extended {
				st.Extended++
			} else {
				st.Accepted++
			}
			fails = 0
		} else {
			// The pairs of a rejected cluster seed nothing more.
			for _, x := range members {
				for _, y := range members {
					tried[[2]int{min(x, y), max(x, y)}] = true
				}
			}
			fails++
		}
	}
	if base != nil && baseScore > cur {
		n, ll = base, baseLL
	}
	st.Time = time.Since(t0)
	return n, ll, st
}

// overlapping returns the source of n that has the most of the
// candidate's members among its children, at least two and not all of
// them (−1 if none). Such a source already explains part of the
// members' dependence: the residual stage then also tries giving it the
// other members (withChildren) instead of adding a second source over
// nearly the same children, which a source whose first candidate lacked
// a weak child would otherwise get.
func overlapping(n *noisyor.Network, members []int) int {
	best, most := -1, 1
	for s, src := range n.Sources {
		k := 0
		for _, c := range src.Children {
			if slices.Contains(members, c.Effect) {
				k++
			}
		}
		if k > most && k < len(members) {
			best, most = s, k
		}
	}
	return best
}

// withChildren returns a copy of n in which source k also has the
// children of cand that it lacks, with cand's starting failures, and
// those effects' leaks lowered so that their marginals are unchanged.
func withChildren(n *noisyor.Network, k int, cand noisyor.Source) *noisyor.Network {
	out := n.Clone()
	if out.Leak == nil {
		out.Leak = make([]float64, len(out.Effects))
	}
	src := &out.Sources[k]
	for _, c := range cand.Children {
		if slices.ContainsFunc(src.Children, func(x noisyor.Child) bool { return x.Effect == c.Effect }) {
			continue
		}
		keep := (1 - out.Leak[c.Effect]) / (1 - src.Prior + src.Prior*c.Failure)
		out.Leak[c.Effect] = min(max(1-keep, 1e-6), 1-1e-9)
		src.Children = append(src.Children, c)
	}
	slices.SortFunc(src.Children, func(x, y noisyor.Child) int { return x.Effect - y.Effect })
	return out
}

// freeName returns the first name X<k> that no source of n has.
func freeName(n *noisyor.Network) string {
	for k := len(n.Sources) + 1; ; k++ {
		name := "X" + strconv.Itoa(k)
		if !slices.ContainsFunc(n.Sources, func(s noisyor.Source) bool { return s.Name == name }) {
			return name
		}
	}
}

// trimIter is the number of EM updates after trimming edges.
const trimIter = 5

// trimEdges returns a copy of n without the edges that cannot pay for
// themselves in BIC, and how many it removed. An edge X→a is judged as if
// X were observed: the rows where X is on (p·rows of them) see a at 1
// with probability r₁ = 1 − (1 − r₀)·f instead of r₀ = P(a = 1) under
// the rest, so observing X would gain p·rows·KL(r₁ ‖ r₀) in
// log-likelihood; with X hidden the gain is smaller, so an edge whose
// bound is below its cost ln(rows)/2 goes. A source left with fewer than
// two children goes too; the last result counts those sources.
func trimEdges(n *noisyor.Network, b *noisyor.Binary) (*noisyor.Network, int, int) {
	out := n.Clone()
	cost := math.Log(float64(b.Rows)) / 2
	removed := 0
	for s := range out.Sources {
		src := &out.Sources[s]
		kept := src.Children[:0]
		for _, c := range src.Children {
			if edgeBound(src.Prior, c, b) < cost {
				removed++
				continue
			}
			kept = append(kept, c)
		}
		src.Children = kept
	}
	srcs := out.Sources[:0]
	for _, src := range out.Sources {
		if len(src.Children) >= 2 {
			srcs = append(srcs, src)
		} else {
			removed += len(src.Children)
		}
	}
	gone := len(out.Sources) - len(srcs)
	out.Sources = srcs
	return out, removed, gone
}

// edgeBound is trimEdges' bound on the log-likelihood gain of the edge
// c of a source with prior p: p·rows·KL(r₁ ‖ r₀) over the rows observing
// the child (+Inf when none does, so that the edge is never judged).
func edgeBound(p float64, c noisyor.Child, b *noisyor.Binary) float64 {
	obs := b.CountOnes(c.Effect) + b.CountZeros(c.Effect)
	if obs == 0 {
		return math.Inf(1)
	}
	// r₀: a's rate with X off, from its observed rate.
	r := float64(b.CountOnes(c.Effect)) / float64(obs)
	r0 := 1 - (1-r)/(1-p+p*c.Failure)
	r0 = min(max(r0, 1e-9), 1-1e-9)
	r1 := 1 - (1-r0)*c.Failure
	return p * float64(obs) * klBern(r1, r0)
}

// klBern is the Kullback–Leibler divergence of Bernoulli(p) from
// Bernoulli(q), in nats.
func klBern(p, q float64) float64 {
	d := 0.0
	if p > 0 {
		d += p * math.Log(p/q)
	}
	if p < 1 {
		d += (1 - p) * math.Log((1-p)/(1-q))
	}
	return d
}

// mergeSources is the merge step after the residual stage's final
// polish. The residual stage may split one true source into two over
// overlapping children (each with about half its prior) when giving the
// missing children to the source already there loses to a new source
// after only a few EM updates. For each pair of sources sharing at least
// two children, one of them new (not named in before), in order of their
// indices, the network with one source over the union of their children,
// from the parameters of the pair's source with the larger prior (the
// other's failures for the children it alone has) and the sum of their
// priors, is screened on those children's columns (screen) and, when it
// passes, polished by EM to convergence; it replaces the network, whose
// log-likelihood ll is that of EM to convergence with the same options,
// when its BIC is higher. It returns the network, its log-likelihood, the
// last merge's EM run (nil when none) and the number of merges.
func mergeSources(n *noisyor.Network, ll float64, b *noisyor.Binary, before map[string]bool, workers int) (*noisyor.Network, float64, *noisyor.EMResult, int) {
	merged := 0
	var last *noisyor.EMResult
	cur := bic(n, ll, b.Rows)
	tried := make(map[[2]string]bool)
	for {
		found := false
		for i := 0; i < len(n.Sources) && !found; i++ {
			for j := i + 1; j < len(n.Sources) && !found; j++ {
				si, sj := &n.Sources[i], &n.Sources[j]
				key := [2]string{si.Name, sj.Name}
				if tried[key] || (before[si.Name] && before[sj.Name]) || sharedChildren(si, sj) < 2 {
					continue
				}
				tried[key] = true
				alt := mergedPair(n, i, j)
				if len(screen(n, []*noisyor.Network{alt}, b, effectsOf(si, sj), workers)) == 0 {
					continue
				}
				fit, em, err := alt.FitEM(b, noisyor.EMOptions{Workers: workers})
				if err != nil {
					continue
				}
				if sc := bic(fit, em.LogLik, b.Rows); sc > cur {
					n, ll, cur, last = fit, em.LogLik, sc, em
					merged++
					found = true
				}
			}
		}
		if !found {
			return n, ll, last, merged
		}
	}
}

// sharedChildren returns the number of effects that are children of both
// sources.
func sharedChildren(x, y *noisyor.Source) int {
	k := 0
	for _, c := range x.Children {
		if slices.ContainsFunc(y.Children, func(d noisyor.Child) bool { return d.Effect == c.Effect }) {
			k++
		}
	}
	return k
}

// mergedPair returns a copy of n in which sources i and j are one source
// over the union of their children: the one with the larger prior (i on
// a tie) keeps its name and failures, takes the other's failures for the
// children it lacks, and gets the sum of their priors (at most 0.99).
func mergedPair(n *noisyor.Network, i, j int) *noisyor.Network {
	out := n.Clone()
	keep, drop := i, j
	if out.Sources[j].Prior > out.Sources[i].Prior {
		keep, drop = j, i
	}
	src, other := &out.Sources[keep], out.Sources[drop]
	src.Prior = min(src.Prior+other.Prior, 0.99)
	for _, c := range other.Children {
		if !slices.ContainsFunc(src.Children, func(d noisyor.Child) bool { return d.Effect == c.Effect }) {
			src.Children = append(src.Children, c)
		}
	}
	slices.SortFunc(src.Children, func(x, y noisyor.Child) int { return x.Effect - y.Effect })
	out.Sources = slices.Delete(out.Sources, drop, drop+1)
	return out
}
