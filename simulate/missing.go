package simulate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
)

// Blank returns a copy of d in which every cell is missing, independently,
// with probability frac (missing completely at random): data.Missing in a
// discrete column, NaN in a continuous one. Cells already missing stay
// missing.
func Blank(src rand.Source, d *data.Dataset, frac float64) (*data.Dataset, error) {
	if src == nil {
		return nil, errNoSource
	}
	if d == nil {
		return nil, errors.New("simulate: no dataset")
	}
	if !(frac >= 0 && frac <= 1) {
		return nil, fmt.Errorf("simulate: fraction of missing cells %g outside [0, 1]", frac)
	}
	rng := rand.New(src)
	out, err := data.New(d.Vars(), d.NumRows())
	if err != nil {
		return nil, err
	}
	for j := 0; j < d.NumVars(); j++ {
		if d.Var(j).Kind == data.Continuous {
			col := out.Continuous(j)
			for r, x := range d.Continuous(j) {
				if rng.Float64() < frac {
					x = math.NaN()
				}
				col[r] = x
			}
			continue
		}
		col := out.Discrete(j)
		for r, x := range d.Discrete(j) {
			if rng.Float64() < frac {
				x = data.Missing
			}
			col[r] = x
		}
	}
	return out, nil
}
