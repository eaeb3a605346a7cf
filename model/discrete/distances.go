package discrete

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// InformationDistance returns the exact information distance between nodes
// u and v of a discrete model (Choi et al. 2011, eq. 6, after Lake 1994):
//
//	d(u,v) = −log |det P(u,v)| + ½ log det diag P(u) + ½ log det diag P(v)
//
// which is additive along paths when every node on the path has the same
// number of states. It is +Inf when P(u,v) is singular (for example when u
// and v are independent) and an error when u and v have different numbers of
// states or a state of zero probability.
func (m *Model) InformationDistance(u, v int) (float64, error) {
	marg := m.Marginals()
	return m.distance(u, v, marg, m.transitions(u, marg))
}

func (m *Model) distance(u, v int, marg, tr [][]float64) (float64, error) {
	k := m.States[u]
	if m.States[v] != k {
		return 0, fmt.Errorf("model: information distance between %s (%d states) and %s (%d states) is undefined", m.Tree.Name(u), k, m.Tree.Name(v), m.States[v])
	}
	if u == v {
		return 0, nil
	}
	logDiag := func(w int) (float64, error) {
		s := 0.0
		for a, p := range marg[w] {
			if !(p > 0) {
				return 0, fmt.Errorf("model: state %d of %s has probability 0", a, m.Tree.Name(w))
			}
			s += math.Log(p)
		}
		return s, nil
	}
	lu, err := logDiag(u)
	if err != nil {
		return 0, err
	}
	lv, err := logDiag(v)
	if err != nil {
		return 0, err
	}
	j := joint(marg[u], tr[v], k)
	ld, sign := mat.LogDet(mat.NewDense(k, k, j))
	if sign == 0 || math.IsInf(ld, -1) || math.IsNaN(ld) {
		return math.Inf(1), nil
	}
	d := -ld + 0.5*lu + 0.5*lv
	if d < 0 && d > -1e-12 {
		d = 0
	}
	return d, nil
}

// EdgeDistances returns InformationDistance of the endpoints of every edge
// of the model's tree, in the order of Tree.Edges(), computing the
// marginals once; NaN where the distance is undefined (different numbers
// of states, a state of probability 0).
func (m *Model) EdgeDistances() []float64 {
	marg := m.Marginals()
	r := m.Rooted()
	edges := m.Tree.Edges()
	out := make([]float64, len(edges))
	tr := make([][]float64, m.Tree.MaxID())
	for i, e := range edges {
		tr[e.V] = m.nearTransition(r, e.U, e.V, marg)
		d, err := m.distance(e.U, e.V, marg, tr)
		tr[e.V] = nil
		if err != nil {
			d = math.NaN()
		}
		out[i] = d
	}
	return out
}

// Distances returns the exact information distances between all pairs of
// the given nodes, row-major len(nodes)×len(nodes).
func (m *Model) Distances(nodes []int) ([]float64, error) {
	marg := m.Marginals()
	n := len(nodes)
	out := make([]float64, n*n)
	for i, u := range nodes {
		tr := m.transitions(u, marg)
		for j := i + 1; j < n; j++ {
			d, err := m.distance(u, nodes[j], marg, tr)
			if err != nil {
				return nil, err
			}
			out[i*n+j], out[j*n+i] = d, d
		}
	}
	return out, nil
}
