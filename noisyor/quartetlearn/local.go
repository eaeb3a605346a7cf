package quartetlearn

import (
	"math"
	"slices"

	"github.com/latentree/latentree/noisyor"
)

// The residual stage, the merge step and the trim judge many changes of a
// network, each of which touches a few sources. Polishing the whole
// network by EM for each is what made them slow; instead a change is
// first judged on the columns it touches (screen), where both networks
// are exact marginals and EM is cheap, and only a change that passes is
// judged again on the whole network polished by EM.

// restrict returns the marginal of n on the effects set (increasing
// indices into n.Effects, which are b's columns): the sources with their
// children in set (those with none left out) and set's leaks, over b's
// columns set, and which of its sources are not named in free. The
// marginal of a noisy-or network on some of its effects is exactly that
// network, so its likelihood of the columns is exact. A source not named
// in free with one child in set is folded into that child's leak (the
// same marginal: 1 − ν' = (1 − ν)(1 − p + p·f)), so that EM sums over
// fewer sources.
func restrict(n *noisyor.Network, b *noisyor.Binary, set []int, free map[string]bool) (*noisyor.Network, *noisyor.Binary, []bool) {
	pos := make(map[int]int, len(set))
	var fixed []bool
	sub := &noisyor.Network{Effects: make([]string, len(set))}
	sb := &noisyor.Binary{Rows: b.Rows, Names: make([]string, len(set)), Ones: make([][]uint64, len(set)),
		Zeros: make([][]uint64, len(set)), Missing: make([]int, len(set))}
	for i, a := range set {
		pos[a] = i
		sub.Effects[i] = n.Effects[a]
		sb.Names[i], sb.Ones[i], sb.Zeros[i], sb.Missing[i] = b.Names[a], b.Ones[a], b.Zeros[a], b.Missing[a]
	}
	sub.Leak = make([]float64, len(set))
	for i, a := range set {
		sub.Leak[i] = n.LeakOf(a)
	}
	for _, src := range n.Sources {
		var ch []noisyor.Child
		for _, c := range src.Children {
			if i, ok := pos[c.Effect]; ok {
				ch = append(ch, noisyor.Child{Effect: i, Failure: c.Failure})
			}
		}
		if len(ch) == 1 && !free[src.Name] {
			// A held source with one child in set acts on that
			// child's marginal alone: it is part of the child's leak.
			c := ch[0]
			sub.Leak[c.Effect] = 1 - (1-sub.Leak[c.Effect])*(1-src.Prior+src.Prior*c.Failure)
			continue
		}
		if len(ch) > 0 {
			sub.Sources = append(sub.Sources, noisyor.Source{Name: src.Name, Prior: src.Prior, Children: ch})
			fixed = append(fixed, !free[src.Name])
		}
	}
	return sub, sb, fixed
}

// localLogLik returns the log-likelihood of b's columns set under n's
// marginal on them (restrict) after EM to convergence from n's
// parameters on those columns alone, with the sources named in free and
// the leaks re-estimated and the other sources held.
func localLogLik(n *noisyor.Network, b *noisyor.Binary, set []int, free map[string]bool, workers int) (float64, bool) {
	sub, sb, fixed := restrict(n, b, set, free)
	_, em, err := sub.FitEM(sb, noisyor.EMOptions{Workers: workers, FixSources: fixed})

	if err != nil {
		return 0, false
	}
	return em.LogLik, true
}

// effectsOf returns the children of the given sources, in increasing
// order, without repeats.
func effectsOf(srcs ...*noisyor.Source) []int {
	var set []int
	for _, s := range srcs {
		for _, c := range s.Children {
			set = append(set, c.Effect)
		}
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// screen returns the alternatives to n (changes of a few sources, whose
// children in n and in the alternatives are set) that improve on n's
// BIC when judged on the columns set alone: the difference of the
// log-likelihoods of those columns (localLogLik, with the changed
// sources of every alternative and the leaks free in each network, the
// other sources held), less the difference of the numbers of parameters
// times ln(rows)/2. When n cannot be fitted there, every alternative
// passes, to be judged on the whole network.
func screen(n *noisyor.Network, alts []*noisyor.Network, b *noisyor.Binary, set []int, workers int) []*noisyor.Network {
	free := make(map[string]bool)
	for _, alt := range alts {
		changedSources(n, alt, free)
	}
	baseLL, ok := localLogLik(n, b, set, free, workers)
	if !ok {
		return alts
	}
	penalty := math.Log(float64(b.Rows)) / 2
	var out []*noisyor.Network
	for _, alt := range alts {
		ll, ok := localLogLik(alt, b, set, free, workers)
		if ok && ll-baseLL-float64(alt.NumParams()-n.NumParams())*penalty > 0 {
			out = append(out, alt)
		}
	}
	return out
}

// changedSources adds to names the sources of n and alt, by name, that
// are in one network only or whose prior, children or failures differ
// between them (a merge may keep a source's children and change its
// prior).
func changedSources(n, alt *noisyor.Network, names map[string]bool) {
	same := func(x, y noisyor.Source) bool {
		return x.Prior == y.Prior && slices.Equal(x.Children, y.Children)
	}
	mark := func(from, other *noisyor.Network) {
		for _, src := range from.Sources {
			k := slices.IndexFunc(other.Sources, func(x noisyor.Source) bool { return x.Name == src.Name })
			if k < 0 || !same(src, other.Sources[k]) {
				names[src.Name] = true
			}
		}
	}
	mark(n, alt)
	mark(alt, n)
}
