package quartetlearn

import (
	"cmp"
	"math"
	"slices"

	"github.com/latentree/latentree/noisyor"
)

// nullFailure is the failure probability above which trimGreedy tries
// an edge whatever its bound: an active source that fails to turn the
// child on more than 95% of the time explains almost nothing of it, yet
// the bound (the gain if the source were observed) can exceed the cost
// for a child that is rarely on otherwise.
const nullFailure = 0.95

// weakEdge is an edge that trimEdges' bound says may not pay for itself.
type weakEdge struct {
	source string
	effect int
	bound  float64
}

// trimGreedy removes, one at a time, the edges of n that do not pay for
// themselves in BIC, so that one edge that pays for nothing (a failure
// near 1 left by the final polish) goes even when removing it together
// with the others would lower the BIC. The candidates are the edges whose
// bound (edgeBound) is below their cost ln(rows)/2 or whose failure is
// above nullFailure, smallest bound first; each
// is removed (withoutEdge: its source too when that leaves it fewer than
// two children), screened on its source's children (screen), and kept
// removed when the network's BIC after trimIter EM updates of the whole
// network beats the current one's. n, whose log-likelihood is ll, is
// taken to be polished to convergence; when an edge goes, the result is
// polished to convergence again (em reports that run; nil when nothing
// went). It returns the network, its log-likelihood, the edges and the
// sources removed.
func trimGreedy(n *noisyor.Network, ll float64, b *noisyor.Binary, workers int) (*noisyor.Network, float64, *noisyor.EMResult, int, int) {
	cost := math.Log(float64(b.Rows)) / 2
	var weak []weakEdge
	for _, src := range n.Sources {
		for _, c := range src.Children {
			if bd := edgeBound(src.Prior, c, b); bd < cost || c.Failure > nullFailure {
				weak = append(weak, weakEdge{source: src.Name, effect: c.Effect, bound: bd})
			}
		}
	}
	slices.SortStableFunc(weak, func(x, y weakEdge) int { return cmp.Compare(x.bound, y.bound) })
	cur := bic(n, ll, b.Rows)
	edges, sources := 0, 0
	for _, w := range weak {
		s := slices.IndexFunc(n.Sources, func(x noisyor.Source) bool { return x.Name == w.source })
		if s < 0 || !slices.ContainsFunc(n.Sources[s].Children, func(c noisyor.Child) bool { return c.Effect == w.effect }) {
			continue // gone with its source
		}
		alt, k, gone := withoutEdge(n, s, w.effect)
		if len(screen(n, []*noisyor.Network{alt}, b, effectsOf(&n.Sources[s]), workers)) == 0 {
			continue
		}
		fit, em, err := alt.FitEM(b, noisyor.EMOptions{MaxIter: trimIter, Workers: workers})
		if err != nil {
			continue
		}
		if sc := bic(fit, em.LogLik, b.Rows); sc > cur {
			n, ll, cur = fit, em.LogLik, sc
			edges += k
			sources += gone
		}
	}
	if edges == 0 {
		return n, ll, nil, 0, 0
	}
	fit, em, err := n.FitEM(b, noisyor.EMOptions{Workers: workers})
	if err != nil {
		return n, ll, nil, edges, sources
	}
	return fit, em.LogLik, em, edges, sources
}

// withoutEdge returns a copy of n without the edge from source s to
// effect a, and without s when that leaves it fewer than two children;
// each effect that loses a parent gets the leak that keeps its marginal.
// It also returns the number of edges and of sources removed.
func withoutEdge(n *noisyor.Network, s, a int) (*noisyor.Network, int, int) {
	out := n.Clone()
	if out.Leak == nil {
		out.Leak = make([]float64, len(out.Effects))
	}
	src := &out.Sources[s]
	drop := func(c noisyor.Child) {
		keep := (1 - out.Leak[c.Effect]) * (1 - src.Prior + src.Prior*c.Failure)
		out.Leak[c.Effect] = min(max(1-keep, 0), 1-1e-9)
	}
	i := slices.IndexFunc(src.Children, func(c noisyor.Child) bool { return c.Effect == a })
	drop(src.Children[i])
	src.Children = slices.Delete(src.Children, i, i+1)
	if len(src.Children) >= 2 {
		return out, 1, 0
	}
	for _, c := range src.Children {
		drop(c)
	}
	k := 1 + len(src.Children)
	out.Sources = slices.Delete(out.Sources, s, s+1)
	return out, k, 1
}
