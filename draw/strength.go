package draw

import (
	"fmt"
	"math"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
)

// EdgeStrengths returns the strength of the dependence along every edge
// of m's tree, keyed (u, v) with u < v: exp(−d) for the exact information
// distance d between the edge's ends, which is |ρ| for a Gaussian model
// and |det P(u,v)| / √(det diag P(u) · det diag P(v)) for a discrete one,
// in [0, 1]. Edges whose distance is undefined (discrete ends with
// different numbers of states, a state of probability 0) are left out.
func EdgeStrengths(m model.Model) (map[[2]int]float64, error) {
	if m == nil || m.Structure() == nil {
		return nil, fmt.Errorf("draw: no model")
	}
	t := m.Structure()
	edges := t.Edges()
	out := make(map[[2]int]float64, len(edges))
	put := func(u, v int, d float64) {
		if math.IsNaN(d) || d < -1e-9 {
			return
		}
		out[[2]int{u, v}] = math.Min(1, math.Exp(-math.Max(0, d)))
	}
	switch m := m.(type) {
	case *gaussian.Model:
		if err := m.Validate(); err != nil {
			return nil, err
		}
		r := m.Rooted()
		for _, e := range edges {
			child := e.V
			if r.Parent[e.U] == e.V {
				child = e.U
			}
			out[[2]int{e.U, e.V}] = math.Min(1, math.Abs(m.Rho[child]))
		}
	case *discrete.Model:
		if err := m.Validate(); err != nil {
			return nil, err
		}
		for i, d := range m.EdgeDistances() {
			put(edges[i].U, edges[i].V, d)
		}
	default:
		for _, e := range edges {
			d, err := m.InformationDistances([]int{e.U, e.V})
			if err != nil {
				continue
			}
			put(e.U, e.V, d[1])
		}
	}
	return out, nil
}
