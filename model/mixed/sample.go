package mixed

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// Sample draws n independent rows of the observed variables, in the order
// of the tree's observed nodes (increasing identifier): discrete columns
// labelled with the model's labels (StateLabels), continuous columns of
// real values. Every node is drawn from the root to the leaves; hidden
// nodes are drawn but not returned. The caller bounds n (every node's
// column is held in memory: see simulate.CheckRows).
func (m *Model) Sample(src rand.Source, n int) (*data.Dataset, error) {
	if src == nil {
		return nil, model.ErrNoSource
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errors.New("model: negative sample size")
	}
	rng := rand.New(src)
	t := m.Tree
	r := m.Rooted()
	obs := t.Observed()
	vars := make([]data.Variable, len(obs))
	col := make([]int, t.MaxID()) // column of an observed node
	for j, v := range obs {
		vars[j] = data.Variable{Name: t.Name(v), Kind: m.Kinds[v]}
		if m.Kinds[v] == data.Discrete {
			vars[j].States = m.StateLabels(v)
		}
		col[v] = j
	}
	d, err := data.New(vars, n)
	if err != nil {
		return nil, err
	}
	// Observed nodes are drawn straight into the dataset's columns.
	states := make([][]uint16, t.MaxID())
	values := make([][]float64, t.MaxID())
	for _, v := range r.Order {
		if m.Kinds[v] == data.Discrete {
			if t.IsHidden(v) {
				states[v] = make([]uint16, n)
			} else {
				states[v] = d.Discrete(col[v])
			}
		} else {
			if t.IsHidden(v) {
				values[v] = make([]float64, n)
			} else {
				values[v] = d.Continuous(col[v])
			}
		}
		m.draw(rng, v, r.Parent[v], states, values)
	}
	return d, nil
}

// draw fills node v's column (states[v] or values[v]) given its parent p's
// (−1: v is the root).
func (m *Model) draw(rng *rand.Rand, v, p int, states [][]uint16, values [][]float64) {
	if m.Kinds[v] == data.Discrete {
		k := m.States[v]
		out := states[v]
		if p < 0 {
			for i := range out {
				out[i] = pick(m.Prior, rng.Float64())
			}
			return
		}
		for i, a := range states[p] {
			out[i] = pick(m.CPT[v][int(a)*k:(int(a)+1)*k], rng.Float64())
		}
		return
	}
	out := values[v]
	switch {
	case p >= 0 && m.Kinds[p] == data.Discrete:
		sd := make([]float64, len(m.Var[v]))
		for a, s2 := range m.Var[v] {
			sd[a] = math.Sqrt(s2)
		}
		for i, a := range states[p] {
			out[i] = m.Mean[v][a] + sd[a]*rng.NormFloat64()
		}
	case p >= 0:
		mu, b, sd := m.Mean[v][0], m.Coef[v], math.Sqrt(m.Var[v][0])
		for i, x := range values[p] {
			out[i] = mu + b*x + sd*rng.NormFloat64()
		}
	default:
		mu, sd := m.Mean[v][0], math.Sqrt(m.Var[v][0])
		for i := range out {
			out[i] = mu + sd*rng.NormFloat64()
		}
	}
}

// pick returns the state drawn by u, uniform in [0, 1), from the
// distribution row: the first state whose cumulative probability exceeds
// u, and when round-off leaves u above the total the last state of
// positive probability (never a state of probability 0).
func pick(row []float64, u float64) uint16 {
	s, last := 0.0, 0
	for b, p := range row {
		if p > 0 {
			s += p
			last = b
			if u < s {
				return uint16(b)
			}
		}
	}
	return uint16(last)
}
