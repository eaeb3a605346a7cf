package noisyor

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/seed"
)

// Sample draws rows independent rows from the network: one binary column
// per effect, with states "0" and "1". A nil src uses the fixed seed
// rand.NewPCG(1, 2).
func (n *Network) Sample(src rand.Source, rows int) (*data.Dataset, error) {
	d, _, err := n.SampleAll(src, rows)
	return d, err
}

// SampleAll is Sample that also returns the sources' states: hidden[s][r]
// is whether source s was on in row r.
func (n *Network) SampleAll(src rand.Source, rows int) (*data.Dataset, [][]bool, error) {
	if err := n.Validate(); err != nil {
		return nil, nil, err
	}
	if rows < 0 {
		return nil, nil, fmt.Errorf("noisyor: %d rows to sample", rows)
	}
	if len(n.Effects) == 0 {
		return nil, nil, errors.New("noisyor: network has no effects")
	}
	rng := seed.Rand(src, seed.Model)
	m := len(n.Effects)
	cols := make([][]uint16, m)
	for a := range cols {
		cols[a] = make([]uint16, rows)
	}
	hidden := make([][]bool, len(n.Sources))
	for s := range hidden {
		hidden[s] = make([]bool, rows)
	}
	for r := range rows {
		for a := range m {
			if v := n.LeakOf(a); v > 0 && rng.Float64() < v {
				cols[a][r] = 1
			}
		}
		for s := range n.Sources {
			src := &n.Sources[s]
			if rng.Float64() >= src.Prior {
				continue
			}
			hidden[s][r] = true
			for _, c := range src.Children {
				if rng.Float64() >= c.Failure {
					cols[c.Effect][r] = 1
				}
			}
		}
	}
	vars := make([]data.Variable, m)
	for a, name := range n.Effects {
		vars[a] = data.Variable{Name: name, Kind: data.Discrete, States: []string{"0", "1"}}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		return nil, nil, fmt.Errorf("noisyor: %w", err)
	}
	return d, hidden, nil
}
