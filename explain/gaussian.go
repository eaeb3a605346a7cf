package explain

import (
	"math"

	"github.com/latentree/latentree/model/gaussian"
)

// explainGaussian explains a Gaussian model: observed variables by |correlation|.
// Options.Data is not used (the model has no states).
func explainGaussian(g *gaussian.Model, opt Options) (*Explanation, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	t := g.Tree
	r := g.Rooted()
	obs := t.Observed()
	e := &Explanation{Kind: KindGaussian, Hidden: []Hidden{}}
	depth := make([]int, t.MaxID())
	for _, h := range r.Order {
		if p := r.Parent[h]; p >= 0 {
			depth[h] = depth[p] + 1
		}
		if !t.IsHidden(h) {
			continue
		}
		corr := g.Correlations(h)
		rel := make([]scored[Related], len(obs))
		for j, x := range obs {
			rel[j] = scored[Related]{math.Abs(corr[x]), Related{Name: t.Name(x), Corr: corr[x]}}
		}
		hl := Hidden{Node: h, Name: t.Name(h), Depth: depth[h], Related: topN(rel, opt.top())}
		hl.Label = label(hl.Related, opt.labelWords())
		if p := r.Parent[h]; p >= 0 {
			hl.Parent = t.Name(p)
		}
		e.Hidden = append(e.Hidden, hl)
	}
	return e, nil
}
